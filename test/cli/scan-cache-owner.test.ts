import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeNeeding, giveToNobody, ROOT } from '../sandbox/support/bubblewrap.js';

// Review Z10-2: the scan cache (HLDP_CACHE_DIR, cache_dir) was trusted whoever owned it: a folder another user (here
// nobody) could write held a scan whose entry the attacker rewrote, and root's next `hldp call` ran the planted command
// as the reviewed tool's. Now a cache folder not this user's, or writable by group or others, is refused by the rule the
// code cache has (review Z2-1), with a warning naming it and why, and the process keeps its cache in a private folder.

const HELLO = [
  'name: hello', 'display: Hello', 'intent: say hello back', 'method: hello', 'executor: shell',
  'shell: { argv: [sh, -c, "echo hello-from-the-reviewed-definition"] }', 'params_schema: {}', 'author: someone',
  'created: 2026-12-01', 'why: cache planting probe', '',
].join('\n');

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;

async function call(cacheDir: string): Promise<{ output: string; stderr: string }> {
  const run = await runCli(['call', 'hello', '--repo', repo, '--json'], { env: { HLDP_CACHE_DIR: cacheDir, HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn' }, timeoutMs: 110_000 });
  const receipt = JSON.parse(run.stdout) as { ok: boolean; output: string };
  return { output: receipt.output, stderr: run.stderr };
}

async function filesUnder(path: string): Promise<string[]> {
  return (await readdir(path, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

describeNeeding([ROOT], "a scan cache folder another user can write", () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    repo = join(temp.path, 'repo');
    await mkdir(repo);
    await writeFiles(repo, { 'tools/hello/TOOL.hdlp': HELLO });
  }, 60_000);
  afterAll(() => temp.cleanup());

  it("is not used: a planted entry in a source's folder nobody owns never runs, and the warning names the folder", async () => {
    const cacheDir = join(temp.path, 'cache');
    expect((await call(cacheDir)).output).toBe('hello-from-the-reviewed-definition\n');
    // the attacker's: the source's folder is nobody's, who rewrites the stored scan's command
    const sources = join(cacheDir, 'sources');
    const [source] = await readdir(sources);
    const planted = (await filesUnder(join(sources, source!))).filter((file) => file.endsWith('.json'));
    expect(planted.length).toBeGreaterThan(0);
    for (const file of planted) await writeFile(file, (await readFile(file, 'latin1')).split('echo hello-from-the-reviewed-definition').join('echo planted!!'.padEnd(39)), 'latin1');
    await giveToNobody(join(sources, source!));
    const after = await call(cacheDir);
    expect(after.output).toBe('hello-from-the-reviewed-definition\n');
    expect(after.stderr).toContain(`hldp: the scan cache folder "${join(sources, source!)}" is owned by uid 65534, not by this user (uid 0)`);
    const own = /is not used: this process keeps its cache in "([^"]*hldp-cache-[^"]*)"/.exec(after.stderr)?.[1];
    expect(own).toBeDefined();
    // the process's own cache went with it: a refused start does not leave a whole scan in $TMPDIR
    await expect(stat(own!)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 240_000);

  it('is not used when it is a shared, world-writable folder (sticky, as /tmp)', async () => {
    const shared = join(temp.path, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    const run = await call(shared);
    expect(run.output).toBe('hello-from-the-reviewed-definition\n');
    expect(run.stderr).toContain(`hldp: the scan cache folder "${shared}" is writable by group and others (mode 1777): chmod -R go-w "${shared}"`);
    // nothing of the scan was written there
    expect(await readdir(shared)).toEqual([]);
  }, 240_000);

  it('is made private (0700) when it is this user\'s to make, and used without a word', async () => {
    const own = join(temp.path, 'own', 'cache');
    const first = await call(own);
    const second = await call(own);
    expect(second.output).toBe('hello-from-the-reviewed-definition\n');
    for (const run of [first, second]) expect(run.stderr).not.toContain('scan cache folder');
    expect((await filesUnder(own)).length).toBeGreaterThan(0);
  }, 240_000);
});
