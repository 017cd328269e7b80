import { chmod, lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// Review userZ8, M1: a scan cache a build before review Z10-2 made under umask 002 (0775 folders, 0664 files: Debian's
// default for a user with a group of their own, a unit with UMask=0002) was refused at every start after the upgrade —
// each start cloned, scanned and indexed afresh in a private folder, until someone ran chmod. Now the first start
// removes the cache's own entries (trusting nothing in them) and makes them again 0700; the starts after it use them.

const HELLO = [
  'name: hello', 'display: Hello', 'intent: say hello back', 'method: hello', 'executor: shell',
  'shell: { argv: [sh, -c, "echo hello-from-the-reviewed-definition"] }', 'params_schema: {}', 'author: someone',
  'created: 2026-12-01', 'why: cache upgrade probe', '',
].join('\n');

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;

async function call(cacheDir: string): Promise<{ output: string; stderr: string }> {
  const run = await runCli(['call', 'hello', '--repo', repo, '--json'], { env: { HLDP_CACHE_DIR: cacheDir, HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn' }, timeoutMs: 110_000 });
  expect(run.stdout, run.stderr).not.toBe('');
  const receipt = JSON.parse(run.stdout) as { ok: boolean; output: string };
  expect(receipt.ok, `${run.stdout}\n${run.stderr}`).toBe(true);
  return { output: receipt.output, stderr: run.stderr };
}

/** Every folder and file under `path`, with the folder itself. */
async function everything(path: string): Promise<Array<{ path: string; folder: boolean }>> {
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  return [{ path, folder: true }, ...entries.map((entry) => ({ path: join(entry.parentPath ?? entry.path, entry.name), folder: entry.isDirectory() }))];
}

/** What a build before Z10-2 left under umask 002: every folder 0775, every file 0664. */
async function asUnderUmask002(path: string): Promise<void> {
  for (const entry of await everything(path)) if (!(await lstat(entry.path)).isSymbolicLink()) await chmod(entry.path, entry.folder ? 0o775 : 0o664);
}

beforeAll(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  await mkdir(repo);
  await mkdir(join(temp.path, 'workspace'));
  await writeFiles(repo, { 'tools/hello/TOOL.hdlp': HELLO });
}, 60_000);
afterAll(() => temp.cleanup());

describe('a scan cache an older build made group-writable (umask 002)', () => {
  it('is made again private at the first start after the upgrade, trusting nothing in it, and used from then on', async () => {
    const cacheDir = join(temp.path, 'cache');
    expect((await call(cacheDir)).output).toBe('hello-from-the-reviewed-definition\n');
    // what a group member could have done to it meanwhile: the stored scan's command rewritten
    const stored = (await everything(join(cacheDir, 'sources'))).filter((entry) => !entry.folder && entry.path.endsWith('.json'));
    expect(stored.length).toBeGreaterThan(0);
    for (const { path } of stored) await writeFile(path, (await readFile(path, 'latin1')).split('echo hello-from-the-reviewed-definition').join('echo planted!!'.padEnd(39)), 'latin1');
    // a file of the operator's in the folder is not the cache's: it is left alone
    await writeFile(join(cacheDir, 'NOTES'), 'mine\n');
    await asUnderUmask002(cacheDir);

    const upgraded = await call(cacheDir);
    expect(upgraded.output).toBe('hello-from-the-reviewed-definition\n');
    expect(upgraded.stderr).toContain(`the scan cache folder "${cacheDir}" is writable by group (mode 0775)`);
    expect(upgraded.stderr).toContain('made again private (0700)');
    expect(upgraded.stderr).not.toContain('hldp-cache-');
    const folders = (await everything(cacheDir)).filter((entry) => entry.folder);
    expect(folders.length).toBeGreaterThan(2);
    for (const { path } of folders) expect(((await lstat(path)).mode & 0o022).toString(8), path).toBe('0');
    expect(await readFile(join(cacheDir, 'NOTES'), 'utf8')).toBe('mine\n');

    // the start after it uses the cache without a word
    const next = await call(cacheDir);
    expect(next.output).toBe('hello-from-the-reviewed-definition\n');
    expect(next.stderr).not.toContain('scan cache folder');
  }, 300_000);

  it('is still refused when others may write it too: a shared folder is not this program\'s to change', async () => {
    const cacheDir = join(temp.path, 'shared-cache');
    await call(cacheDir);
    await asUnderUmask002(cacheDir);
    await chmod(join(cacheDir, 'sources'), 0o777);
    const run = await call(cacheDir);
    expect(run.output).toBe('hello-from-the-reviewed-definition\n');
    expect(run.stderr).toContain('is not used: this process keeps its cache in');
  }, 300_000);
});
