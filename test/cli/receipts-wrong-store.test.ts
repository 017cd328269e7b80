import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
const envFor = (data: string): NodeJS.ProcessEnv => ({ HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, data), HLDP_WORKSPACE: temp.path });

beforeEach(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  await writeFiles(repo, { 'tools/fine/TOOL.hdlp': makeToolYaml('fine', { executor: 'shell', method: 'run', shell: '{ argv: [echo, fine] }' }) });
});
afterEach(() => temp.cleanup());

// review userZ, Z4: a mistyped data folder printed nothing, exited 0 and left a new empty receipts.db behind
describe('hldp receipts, read from a store that is not the gateway\'s', () => {
  it('says there is no store where it looked, answers as an empty store, and makes none', async () => {
    const database = join(temp.path, 'typo', 'receipts.db');
    for (const args of [['receipts'], ['receipts', '--failed'], ['receipts', '--rejected'], ['receipts', 'verify']]) {
      const run = await runCli(args, { env: envFor('typo') });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(`no store at ${database}: nothing was recorded there (is --config, HLDP_DATA_DIR or HLDP_RECEIPTS_DB the gateway's? a gateway on PostgreSQL names its store in store.url of the --config file, or HLDP_STORE_URL)\n`);
    }
    const json = await runCli(['receipts', '--json'], { env: envFor('typo') });
    expect(JSON.parse(json.stdout)).toEqual({ receipts: [], limit: 20, offset: 0, next_offset: null });
    expect(JSON.parse((await runCli(['receipts', 'verify', '--json'], { env: envFor('typo') })).stdout)).toMatchObject({ ok: true, checked: 0 });
    expect(existsSync(database)).toBe(false);
    expect(existsSync(join(temp.path, 'typo'))).toBe(false);
  });

  it('says an empty page is empty, with its filters and the database it read', async () => {
    expect((await runCli(['call', 'fine', '--repo', repo], { env: envFor('data') })).code).toBe(0);
    const database = join(temp.path, 'data', 'receipts.db');
    const none = await runCli(['receipts', '--failed', '--tool', 'nope'], { env: envFor('data') });
    expect(none).toMatchObject({ code: 0, stdout: '' });
    // and that the name is no tool's of the registry it read, so no alias of one (review userZ10, U10-20)
    expect(none.stderr).toContain(`no receipts (failed, tool=nope) in ${database}; receipts are kept under a tool's name, and 'nope' names no tool of `);
    const rejected = await runCli(['receipts', '--rejected'], { env: envFor('data') });
    expect(rejected.stderr).toBe(`no rejected calls in ${database}\n`);
    // a page with receipts says nothing more
    const some = await runCli(['receipts'], { env: envFor('data') });
    expect(some.stdout).toContain('fine');
    expect(some.stderr).toBe('');
  });
});
