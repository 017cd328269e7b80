import { execFile, spawn } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { ENTRY_KINDS, ENTRY_LAYOUT, type Diagnostic, type EntryKind } from '../core/index.js';
import { FOLDER_KINDS, isEntryFolderSlip, mayBePolicies, rootPolicyStrays, unreadDefinition, strayPolicies, tooLargeMessage, type DefinitionFile, type RootItem } from '../scanner/index.js';
import { UsageError } from './usage-error.js';

const execFileAsync = promisify(execFile);

// what git's index holds for a regular file; a symlink (120000) or submodule (160000) is not a definition
const REGULAR_MODES = new Set(['100644', '100755']);
const SYMLINK_MODE = '120000';
const SUBMODULE_MODE = '160000';

/** One definition path in the index, with the blob that holds it. */
interface StagedEntry {
  kind: EntryKind;
  folder: string;
  /** as shown in diagnostics: relative to the current folder, as `hldp validate FILE` shows a file */
  shown: string;
  mode: string;
  oid: string;
}

/**
 * Every definition file of the registry rooted at `path` as git's index holds it: what the next commit will hold,
 * deletions included, whatever the working tree says. Read with git itself (`ls-files --stage`, `cat-file --batch`),
 * which knows worktrees, split and sparse indexes.
 */
export async function stagedDefinitionFiles(path: string, maxBytes: number): Promise<{ files: DefinitionFile[]; unread: Diagnostic[]; root: string }> {
  const root = realFolder(path);
  const environment = hookEnvironment();
  // git hands a hook its repository in GIT_DIR (a linked worktree's .git/worktrees/NAME) and the index the commit
  // takes in GIT_INDEX_FILE (`commit -a`, `commit PATH`: a temporary one), and reads the working tree's top from the
  // current folder: asked from the registry's folder instead, that folder was the top, and the registry held nothing
  // (review P, P4)
  const asked = environment.GIT_DIR !== undefined ? process.cwd() : root;
  const top = await gitOutput(asked, ['rev-parse', '--show-toplevel'], environment).then(
    (output) => realpathSync(output.trim()),
    (error: Error) => {
      throw new UsageError(`--staged reads git's index, but '${path}' is not inside a git working tree (${firstLine(error.message)})`);
    },
  );
  if (!isInside(root, top)) throw new UsageError(`--staged: '${path}' is outside the working tree of the repository git named (GIT_DIR=${environment.GIT_DIR}, working tree ${top}); run it from that repository's hook on a folder of it`);
  const prefix = relative(top, root).split(sep).join('/');
  const git = (args: string[]): Promise<string> => gitOutput(top, args, environment);
  const listing = await git(['ls-files', '--stage', '-z', '--full-name', '--', prefix ? `:(top,literal)${prefix}` : ':(top)']);
  const entries: StagedEntry[] = [];
  const meantAsPolicies = new Map<string, RootItem['type']>();
  const inPolicies = new Map<string, boolean>();
  const holding = new EntryFolders();
  for (const record of listing.split('\0')) {
    const match = /^(\d{6}) ([0-9a-f]{40,64}) (\d)\t(.*)$/s.exec(record);
    if (!match) continue;
    const [, mode, oid, stage, fullName] = match as unknown as [string, string, string, string, string];
    // an unmerged path (stages 1-3) cannot be committed: git itself refuses the commit
    if (stage !== '0') continue;
    const inRegistry = prefix ? fullName.slice(prefix.length + 1) : fullName;
    const entry = entryOf(inRegistry);
    if (entry) entries.push({ ...entry, shown: relative(process.cwd(), resolve(top, fullName)) || fullName, mode, oid });
    // what is meant as policies but a scan of the commit would not read, found as the scan finds it (review P, P15; Q, Q5)
    const parts = inRegistry.split('/');
    // a slip of tools/ (`Tools/`, `tool/`) counts when it holds a definition file, which it would not serve (userZ7, F7)
    if (mayBePolicies(parts[0]!) && (!isEntryFolderSlip(parts[0]!) || (parts.length > 1 && DEFINITION_NAME.test(parts.at(-1)!)))) meantAsPolicies.set(parts[0]!, parts.length > 1 ? 'folder' : mode === SYMLINK_MODE ? 'symlink' : mode === SUBMODULE_MODE ? 'submodule' : 'file');
    if (parts[0] === ENTRY_LAYOUT.policy.folder && parts.length > 1 && !entry) inPolicies.set(parts[1]!, parts.length > 2);
    holding.add(parts);
  }
  const shownAt = (file: string): string => relative(process.cwd(), resolve(root, file)) + (file.endsWith('/') ? '/' : '');
  const strays = [...rootPolicyStrays([...meantAsPolicies].map(([name, type]) => ({ name, type }))).map(asError), ...strayPolicies([...inPolicies].map(([name, folder]) => ({ name, folder })))];
  const unread: Diagnostic[] = [...strays, ...holding.unread(entries)].map((stray) => ({ ...stray, file: shownAt(stray.file) }));
  const wanted: StagedEntry[] = [];
  for (const entry of entries) {
    const at = { file: entry.shown, line: 1, column: 1, severity: 'error' as const };
    if (!REGULAR_MODES.has(entry.mode)) unread.push({ ...at, code: 'NOT_A_FILE', message: `${entry.shown} must be a regular file (not a symlink or submodule)` });
    else wanted.push(entry);
  }
  const blobs = await readBlobs(top, environment, wanted.map((entry) => entry.oid), maxBytes);
  const files: DefinitionFile[] = [];
  wanted.forEach((entry, index) => {
    const blob = blobs[index]!;
    if (typeof blob === 'number') {
      unread.push({ file: entry.shown, line: 1, column: 1, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(blob, maxBytes, entry.shown) });
      return;
    }
    files.push({ ...(entry.kind === 'tool' ? {} : { kind: entry.kind }), path: entry.shown, folder: entry.folder, oid: entry.oid, content: blob });
  });
  return { files, unread, root };
}

/** `tools/<name>/TOOL.hdlp`, `policies/<name>.hdlp`, … relative to the registry's root; anything else is not a definition. */
export function entryOf(path: string): { kind: EntryKind; folder: string } | undefined {
  const parts = path.split('/');
  for (const kind of ENTRY_KINDS) {
    const { folder: top, file, flat } = ENTRY_LAYOUT[kind];
    if (parts[0] !== top) continue;
    if (flat && parts.length === 2 && parts[1]!.endsWith(file) && parts[1]!.length > file.length) return { kind, folder: parts[1]!.slice(0, -file.length) };
    if (!flat && parts.length === 3 && parts[2] === file) return { kind, folder: parts[1]! };
  }
  return undefined;
}

function realFolder(path: string): string {
  let absolute: string;
  try {
    absolute = realpathSync(resolve(path));
  } catch {
    throw new UsageError(`--staged: no such folder '${path}'; give the folder that holds tools/ (the repository's root by default)`);
  }
  if (!statSync(absolute).isDirectory()) throw new UsageError(`--staged takes the folder that holds tools/, not a file: '${path}'`);
  return absolute;
}

/**
 * This process's environment with the repository paths git gave it made absolute, as git reads them from the folder it
 * started in (a hook's: the working tree's top), whatever folder git is then run in. GIT_INDEX_FILE stays as given: git
 * reads a relative one from the working tree's top, where its commands here run.
 */
function hookEnvironment(): NodeJS.ProcessEnv {
  const environment = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY'] as const) {
    const value = environment[name];
    if (value === '') delete environment[name];
    else if (value !== undefined && !isAbsolute(value)) environment[name] = resolve(value);
  }
  return environment;
}

async function gitOutput(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
  return stdout;
}

/** The blobs' contents in order, or a blob's size where it is over `maxBytes` (refused unread, as the scanner refuses it). */
async function readBlobs(cwd: string, env: NodeJS.ProcessEnv, oids: string[], maxBytes: number): Promise<Array<Buffer | number>> {
  if (oids.length === 0) return [];
  const sizes = (await batch(cwd, env, '--batch-check=%(objectsize)', oids)).toString('latin1').trim().split('\n').map(Number);
  const small = oids.filter((_, index) => sizes[index]! <= maxBytes);
  const contents = parseBatch(await batch(cwd, env, '--batch', small));
  let next = 0;
  return oids.map((_, index) => (sizes[index]! <= maxBytes ? contents[next++]! : sizes[index]!));
}

function batch(cwd: string, env: NodeJS.ProcessEnv, option: string, oids: string[]): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', ['cat-file', option], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(Buffer.concat(out)) : reject(new Error(`git cat-file ${option} failed: ${Buffer.concat(err).toString('utf8').trim()}`))));
    child.stdin.end(oids.map((oid) => `${oid}\n`).join(''));
  });
}

// `<oid> blob <size>\n<content>\n`, repeated
function parseBatch(output: Buffer): Buffer[] {
  const contents: Buffer[] = [];
  let position = 0;
  while (position < output.length) {
    const end = output.indexOf(0x0a, position);
    const size = Number(output.toString('latin1', position, end).split(' ')[2]);
    contents.push(output.subarray(end + 1, end + 1 + size));
    position = end + 1 + size + 1;
  }
  return contents;
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.startsWith('fatal:'))?.trim() ?? text.split('\n')[0]!.trim();
}

/** What each folder under tools/ (toolsets/, skills/) holds in the index: one lacking its definition is not read by a scan (userU, F1). */
class EntryFolders {
  private readonly names = new Map<string, Set<string>>();

  /** Notes a path of the index, split at its slashes, relative to the registry's root. */
  add(parts: readonly string[]): void {
    const kind = FOLDER_KINDS.find((each) => ENTRY_LAYOUT[each].folder === parts[0]);
    if (kind === undefined || parts.length < 3) return;
    const key = `${kind}/${parts[1]!}`;
    const names = this.names.get(key) ?? new Set<string>();
    names.add(parts[2]!);
    // a definition one folder too deep (`tools/nested/deeper/TOOL.hdlp`) is named with its folder (userZ7, F4)
    if (parts.length === 4) names.add(`${parts[2]!}/${parts[3]!}`);
    this.names.set(key, names);
  }

  /** The scan's word on each folder that holds no definition file among `entries`, an error when it holds one misnamed. */
  unread(entries: ReadonlyArray<{ kind: EntryKind; folder: string }>): Diagnostic[] {
    const read = new Set(entries.map(({ kind, folder }) => `${kind}/${folder}`));
    return [...this.names]
      .filter(([key]) => !read.has(key))
      .map(([key, names]) => {
        const slash = key.indexOf('/');
        return unreadDefinition(key.slice(0, slash) as EntryKind, key.slice(slash + 1), [...names]);
      });
  }
}

// what a tool, toolset or skill definition is named, in any case: `TOOL.hdlp`, `tool.hdlp`, `SKILL.md`
const DEFINITION_NAME = /\.hdlp$|^skill\.md$/i;

/** A stray a scan warns of (a `Tools/` folder) as validate tells it: an error, since nothing in it would be served. */
export function asError(stray: Diagnostic): Diagnostic {
  return stray.code === 'ENTRY_FOLDER_NOT_READ' ? { ...stray, severity: 'error' } : stray;
}
