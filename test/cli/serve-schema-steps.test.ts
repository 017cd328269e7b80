import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('info');

/** Starts `hldp serve`, waits until it logged that it listens (its store open before), and stops it: all it wrote on stderr. */
async function startAndStop(env: NodeJS.ProcessEnv): Promise<string> {
  const service = await home.serve([], env);
  const until = Date.now() + 60_000;
  while (!service.stderr().includes('"msg":"gateway listening"') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  // 'close' comes once its stderr was read to the end, which 'exit' (all stop waits for) may come before
  const closed = new Promise((resolve) => service.child.once('close', resolve));
  await service.stop();
  await closed;
  return service.stderr();
}

/** The log lines of a service's stderr that say the schema moved. */
function schemaLines(stderr: string): Array<{ schema_steps: Array<{ version: number; name: string }>; schema_version: number }> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; schema_steps: Array<{ version: number; name: string }>; schema_version: number })
    .filter((line) => line.msg === 'store schema brought forward');
}

// review userZ8, L1: the start that moved the schema — after which every older build refuses the store — logged only
// `store open`; README's rollback step (SQLite) is the way back, and the next start applies the step again, and says so
describe('hldp serve over a store at an older schema', () => {
  it('logs the steps it applied, once, and nothing at the starts after', async () => {
    const repo = await makeConsoleRepository(home.path);
    const env = { HLDP_REPO: repo };
    const created = schemaLines(await startAndStop(env));
    expect(created).toHaveLength(1);
    expect(created[0]!.schema_version).toBe(created[0]!.schema_steps.length);

    // README's rollback of step 19 (notification claims), of step 18 (MCP sessions by principal), of step 17 (one pending request per call), then of steps
    // 15 and 16 (the roll of live instances, then its rows marked as left), as an operator going back to the build before them runs it
    const database = new Database(join(home.env.HLDP_DATA_DIR!, 'receipts.db'));
    database.exec('BEGIN; DROP TABLE notification_claims; PRAGMA user_version = 18; COMMIT;');
    database.exec('BEGIN; DROP INDEX mcp_sessions_by_principal; PRAGMA user_version = 17; COMMIT;');
    database.exec('BEGIN; DROP INDEX approvals_pending_by_call; ALTER TABLE approvals DROP COLUMN call_key; PRAGMA user_version = 16; COMMIT;');
    database.exec('BEGIN; DROP TABLE gateway_instances; PRAGMA user_version = 14; COMMIT;');
    expect(database.pragma('user_version', { simple: true })).toBe(14);
    database.close();

    const upgraded = await startAndStop(env);
    expect(schemaLines(upgraded), upgraded).toEqual([expect.objectContaining({ schema_steps: [{ version: 15, name: 'live instances' }, { version: 16, name: 'live instances that left' }, { version: 17, name: 'one pending request per call' }, { version: 18, name: 'MCP sessions by principal' }, { version: 19, name: 'notification claims' }], schema_version: created[0]!.schema_version })]);
    expect(created[0]!.schema_version).toBe(19);

    const again = await startAndStop(env);
    expect(again).toContain('"msg":"store open"');
    expect(schemaLines(again)).toEqual([]);
  }, 180_000);
});
