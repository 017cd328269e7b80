import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ENTRY_KINDS, ENTRY_LAYOUT } from '../core/index.js';
import type { CommandIo } from './command.js';
import { entryOf } from './staged-files.js';
import { terminalSafe } from './terminal-safe.js';

const execFileAsync = promisify(execFile);

/**
 * The definition files of a git checkout that differ from its HEAD (changed, staged, new or deleted), each with git's
 * two-letter status: what `hldp serve --repo .` does not serve, since it reads the committed tree. Empty for anything
 * but a checkout read at HEAD (a plain folder is read as it is), and when git cannot say or `signal` stops it (`git`
 * is killed then: a server that stops does not wait for it). It takes no lock: a `git status` that refreshes the index
 * holds `.git/index.lock` meanwhile, and the author's own `git commit` at that moment failed on it.
 */
export async function uncommittedDefinitions(repo: string, ref: string | undefined, signal?: AbortSignal): Promise<string[]> {
  if (/^https?:\/\//i.test(repo) || (ref !== undefined && ref !== 'HEAD')) return [];
  const root = resolve(repo);
  const dotGit = join(root, '.git');
  if (!existsSync(dotGit) || !statSync(dotGit).isDirectory()) return [];
  const folders = [...new Set(ENTRY_KINDS.map((kind) => ENTRY_LAYOUT[kind].folder))];
  let listing: string;
  try {
    ({ stdout: listing } = await execFileAsync('git', ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...folders], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, signal }));
  } catch {
    return [];
  }
  return listing
    .split('\0')
    .filter((record) => record.length > 3 && entryOf(record.slice(3)) !== undefined)
    .map((record) => `${record.slice(3)} (${describe(record.slice(0, 2))})`);
}

/**
 * How many definitions the warning names: a generator's 10,000 new tools made one line of ~600 KB on every command's
 * stderr and every start's log (the list in `--json` and POST /v1/scan is whole)
 */
const WARNING_NAMES = 20;

/**
 * What a command says of a checkout's `uncommitted` definitions (see `uncommittedDefinitions`): `hldp serve` that it
 * serves them not (`served`, and how a commit is then found), `hldp scan` and `hldp list` that the index they print
 * holds them not (`read`: an author's "my new tool is not there" had no explanation; review userZ9, U9-9).
 */
function uncommittedWarning(source: string, uncommitted: readonly string[], as: 'served' | 'read'): string {
  const not = as === 'served' ? 'are not' : 'are not in this index';
  const then = as === 'served' ? ' (a commit is found at the next poll, or POST /v1/scan)' : '';
  const named = uncommitted.length > WARNING_NAMES ? `${uncommitted.slice(0, WARNING_NAMES).join(', ')} and ${uncommitted.length - WARNING_NAMES} more (git status lists them)` : uncommitted.join(', ');
  return `${source} is ${as} as committed at HEAD, so ${uncommitted.length} definition(s) edited since ${not}: ${named}; commit them${then}`;
}

/** The WARNING on stderr of `uncommittedWarning`; nothing when there is no such definition. */
export function warnIfUncommitted(source: string, uncommitted: readonly string[], as: 'served' | 'read', io: CommandIo): void {
  if (uncommitted.length > 0) io.stderr.write(`hldp: WARNING: ${terminalSafe(uncommittedWarning(source, uncommitted, as))}\n`);
}

function describe(status: string): string {
  if (status === '??') return 'new, not committed';
  if (status.includes('D')) return 'deleted, not committed';
  if (status.includes('A')) return 'added, not committed';
  return 'changed, not committed';
}
