import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
const env = (): NodeJS.ProcessEnv => ({ HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path });

beforeEach(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  await writeFiles(repo, { 'tools/fine/TOOL.hdlp': makeToolYaml('fine', { executor: 'shell', method: 'run', shell: '{ argv: [echo, fine] }' }) });
});
afterEach(() => temp.cleanup());

/**
 * The store file not yet in WAL mode (as a fresh one is while the first process converts it) and another connection in
 * the middle of writing to it: the state in which converting failed at once, while every other statement waited.
 */
function lockedStore(): BetterSqlite3.Database {
  mkdirSync(join(temp.path, 'data'), { recursive: true });
  const other = new BetterSqlite3(join(temp.path, 'data', 'receipts.db'));
  other.pragma('journal_mode = DELETE');
  other.exec('CREATE TABLE held (x)');
  other.exec('BEGIN IMMEDIATE');
  other.exec('INSERT INTO held VALUES (1)');
  return other;
}

// CI, 2026-12-05: of two `hldp serve` started together on a fresh data folder, one exited 2 with "hldp: database is
// locked": SQLite converts a file to WAL under an exclusive lock and runs no busy handler for it, so the second process
// failed at once instead of waiting as it waits for any other lock
describe('a process whose store another process holds locked while it is set up', () => {
  it('waits for the lock, as for any other, and stores its receipt', async () => {
    const other = lockedStore();
    const released = new Promise<void>((resolve) => setTimeout(() => {
      other.exec('COMMIT');
      other.close();
      resolve();
    }, 1500));
    const run = await runCli(['call', 'fine', '--repo', repo, '--json'], { env: env() });
    await released;
    expect(run.stderr).not.toContain('locked');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, tool: 'fine', output: 'fine\n' });
    const listed = await runCli(['receipts', '--json'], { env: env() });
    expect(JSON.parse(listed.stdout).receipts).toHaveLength(1);
  });

  it('says which file stayed locked, and for how long, when the lock is never let go', async () => {
    const other = lockedStore();
    try {
      const run = await runCli(['receipts', '--json'], { env: env() });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`the store ${join(temp.path, 'data', 'receipts.db')} stayed locked by another process for 5 s`);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }, 30_000);
});
