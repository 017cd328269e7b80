import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, relative } from 'node:path';
import { findProgram } from './find-program.js';
import { isInside } from './path-inside.js';
import type { ToolSandbox } from '../core/index.js';
import type { SystemMount } from './bubblewrap.js';
import type { GuardedPaths, HomeReads } from './bubblewrap-arguments.js';
import type { LaunchEnding, LaunchOutcome, LaunchPlan, LaunchRequest } from './sandbox.js';
import { homeFolders } from './workspace-rules.js';

// A program not found where it is (review userZ10, U10-5): a shim on PATH (pyenv's, nvm's, rustup's) is shown to the
// sandbox as its PATH folder is, but the rest of the home folder it lives in is not, so the shim fails with its own
// words ("/root/.pyenv/shims/python3: line 12: /root/.pyenv/libexec/pyenv: No such file or directory", exit 127) and
// the author reads a broken pyenv. One line added to the run's error names the folder the sandbox does not show and
// the fix. It is judged on paths alone, walked as the sandbox shows them: a file is read or a link followed only
// where the run itself sees it, so the line never tells a tool whether something it cannot see exists on the host.

/** What a sandboxed run sees of the host, and how its program was asked for. */
export interface RunView {
  /** the folders bound into the run (the system, PATH folders, the workspace, declared paths, the resolver's folder) */
  shown: readonly string[];
  /** paths hidden on purpose (the gateway's own files, the host's secrets): never named as a fix */
  hidden: readonly string[];
  homes: readonly string[];
  /** the run's program as asked (`python3`, `/usr/bin/env`, `sh`), its PATH and working directory */
  file: string;
  path: string | undefined;
  cwd: string;
  /** `sandbox.ceiling.readable_roots`, real, where the operator sets it */
  readableRoots?: readonly string[];
}

/** The sandbox's own folders (a private /tmp, /proc, /dev): a path there is not the host's. */
const OWN = ['/tmp', '/proc', '/dev'];
/** Where a system program would be: said as the other fix, when one of the same name is there. */
const SYSTEM_PROGRAMS = '/usr/local/bin:/usr/bin:/bin';
/** How much of a failure's end is searched for paths: the failing line is the last, and a tool's stderr may be long. */
const SEARCHED = 16 * 1024;
const ABSOLUTE_PATH = /(?:^|[\s'"`(=:])(\/[^\s'"`:;,()]+)/g;

/** What a sandboxed launch binds, as bubblewrapArguments binds it (`policy`'s paths real), and whose homes the host has. */
export function runView(request: LaunchRequest, policy: ToolSandbox, workspace: string, guarded: GuardedPaths, system: readonly SystemMount[], resolver: string | undefined, reads: HomeReads): RunView {
  const shown = [...system.map((mount) => mount.path), workspace, ...policy.filesystem.read, ...policy.filesystem.write, ...(policy.network && resolver ? [resolver] : []), ...(request.ownCwd ? [request.cwd] : [])];
  return { shown, hidden: guarded.hide, homes: homeFolders(reads.runAsHome), file: request.file, path: request.env.PATH, cwd: request.cwd, ...(reads.readableRoots ? { readableRoots: reads.readableRoots } : {}) };
}

/**
 * Makes `plan`'s end carry `note` (run-process adds it to the error) where the run failed on a path it cannot see;
 * `view` is asked only then.
 */
export function noteHiddenPrograms(plan: LaunchPlan, view: () => RunView): void {
  const finish = plan.finish;
  plan.finish = async (ending: LaunchEnding): Promise<LaunchOutcome> => {
    const outcome = await finish(ending);
    const note = unfound(outcome) ? hiddenProgramNote(outcome, ending.stderr, view()) : undefined;
    return note === undefined ? outcome : { ...outcome, note };
  };
}

// exit 127 (not found) or 126 (found, not runnable: an interpreter it names not found), or a launch that said so
const unfound = (outcome: LaunchOutcome): boolean =>
  outcome.failure?.code === 'SPAWN_FAILED' || (outcome.failure === undefined && outcome.resourceLimit === undefined && (outcome.exitCode === 127 || outcome.exitCode === 126));

/**
 * One line when a run could not find or start a program (exit 127 or 126, or a `SPAWN_FAILED` launch) on a path
 * that lies in a folder the sandbox does not show: the folder, and the fix (the definition's `sandbox.filesystem.read`,
 * with the operator's `sandbox.ceiling.readable_roots` where a home folder or the ceiling needs it, or a system
 * program of the same name). Undefined otherwise.
 */
export function hiddenProgramNote(outcome: LaunchOutcome, stderr: string, view: RunView): string | undefined {
  if (!unfound(outcome)) return undefined;
  const text = (outcome.failure?.message ?? stderr).slice(-SEARCHED);
  const candidates = [...text.matchAll(ABSOLUTE_PATH)].map((match) => match[1]!.replace(/[.]+$/, '')).reverse();
  candidates.push(...programPaths(view));
  for (const candidate of candidates) {
    const unseen = unseenPart(candidate, view);
    if (unseen !== undefined) return noteFor(candidate, unseen, candidates, view);
  }
  return undefined;
}

// the run's program and the interpreter its `#!` line names, as far as the run sees them
function programPaths(view: RunView): string[] {
  // searched only in the PATH folders the run sees: whether a program is in one it does not see is not for it to learn
  const seen = (view.path ?? '').split(delimiter).filter((folder) => isAbsolute(folder) && unseenPart(folder, view) === undefined).join(delimiter);
  const program = view.file.includes('/') ? (isAbsolute(view.file) ? view.file : join(view.cwd, view.file)) : findProgram(view.file, seen, view.cwd);
  if (program === undefined) return [];
  if (unseenPart(program, view) !== undefined) return [program];
  const interpreter = /^#!\s*(\/\S+)/.exec(firstLine(program))?.[1];
  return interpreter === undefined ? [program] : [program, interpreter];
}

function firstLine(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(256);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0)).split('\n')[0]!;
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Where `path` leaves what the run sees: the first folder on its way that is neither bound nor on the way to a bound
 * one, and the path as the host names it from there (links followed only inside what is bound, as the run follows
 * them). Undefined when the run sees all of it, or it lies in the sandbox's own folders or a path hidden on purpose.
 */
function unseenPart(path: string, view: RunView): { folder: string; path: string } | undefined {
  let rest = path.split('/').filter((part) => part !== '' && part !== '.');
  let at = '/';
  for (let links = 0; rest.length > 0; ) {
    const part = rest.shift()!;
    const next = part === '..' ? join(at, '..') : join(at, part);
    if (OWN.some((folder) => isInside(next, folder)) || view.hidden.some((folder) => isInside(next, folder))) return undefined;
    const bound = view.shown.some((folder) => isInside(next, folder));
    if (!bound && !view.shown.some((folder) => isInside(folder, next))) return { folder: next, path: join(next, ...rest) };
    const link = bound ? linkOf(next) : undefined;
    if (link === undefined) at = next;
    else {
      if ((links += 1) > 40) return undefined;
      rest = [...link.split('/').filter((piece) => piece !== '' && piece !== '.'), ...rest];
      if (isAbsolute(link)) at = '/';
    }
  }
  return undefined;
}

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function noteFor(named: string, unseen: { folder: string; path: string }, candidates: readonly string[], view: RunView): string {
  const home = view.homes.find((folder) => isInside(unseen.path, folder));
  // in a home, the whole of its entry (~/.pyenv: the shim's libexec and versions both); elsewhere the folder unseen
  const folder = home === undefined || unseen.path === home ? unseen.folder : join(home, relative(home, unseen.path).split('/')[0]!);
  const operator = home !== undefined || (view.readableRoots !== undefined && !view.readableRoots.some((root) => isInside(folder, root)));
  const where = home === undefined ? 'which the sandbox does not show tools' : `in the home folder ${home}, which the sandbox does not show tools`;
  const read = `sandbox: {filesystem: {read: [${folder}]}}`;
  const grant = operator ? `the operator lists ${folder} in sandbox.ceiling.readable_roots and the definition declares ${read}` : `the definition declares ${read}`;
  const system = systemProgram(candidates, view);
  const other = system === undefined ? 'call a system program (in /usr/bin) by its absolute path' : `call ${system}, which the sandbox shows`;
  const shown = named === unseen.path ? `'${named}'` : `'${named}' (${unseen.path})`;
  return `hldp: ${shown} lies in ${folder}, ${where}: a program there (or one a shim runs from there) is not found in the sandbox; to give it, ${grant}; or ${other}`;
}

// a program of a system folder named as one the failure names (the shim's python3 → /usr/bin/python3), which the run sees
function systemProgram(candidates: readonly string[], view: RunView): string | undefined {
  const names = [...candidates.map((candidate) => basename(candidate)), ...(view.file.includes('/') ? [] : [view.file])];
  for (const name of new Set(names)) {
    if (name === '' || name === 'sh' || name === 'env') continue;
    const found = findProgram(name, SYSTEM_PROGRAMS, '/');
    if (found !== undefined && unseenPart(found, view) === undefined) return found;
  }
  return undefined;
}
