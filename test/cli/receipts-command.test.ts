import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let repo: string;

beforeEach(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
  await writeFiles(repo, {
    'tools/fine/TOOL.hdlp': makeToolYaml('fine', { executor: 'shell', method: 'run', shell: '{ argv: [echo, fine] }' }),
    'tools/fails/TOOL.hdlp': makeToolYaml('fails', { executor: 'shell', method: 'run', shell: '{ script: "echo \\"disk full: /var is 100%\\" >&2; echo second line >&2; exit 3" }' }),
  });
});
afterEach(() => temp.cleanup());

describe('hldp receipts', () => {
  it('prints the same envelope as GET /v1/receipts with --json, each receipt naming its source', async () => {
    await runCli(['call', 'fine', '--repo', repo], { env });
    const run = await runCli(['receipts', '--json', '--limit', '1'], { env });
    const page = JSON.parse(run.stdout) as { receipts: Receipt[]; limit: number; offset: number; next_offset: number | null };
    expect(page).toMatchObject({ limit: 1, offset: 0, next_offset: null, receipts: [{ tool: 'fine', ok: true }] });
    expect(page.receipts[0]!.source).toEqual({ host: hostname(), repository: repo });
  });

  it('shows the head of the error of a failed call in the list', async () => {
    await runCli(['call', 'fails', '--repo', repo], { env });
    const run = await runCli(['receipts'], { env });
    expect(run.stdout).toMatch(/\[FAILED NONZERO_EXIT\] fails .* — disk full: \/var is 100%\n$/);
    expect(run.stdout).not.toContain('second line');
  });
});

/**
 * The short ids the console, `hldp tail` and the lists print, opened with `hldp receipts <prefix>` on either store: on
 * PostgreSQL it said "no receipt" (only SQLite's store had findByPrefix; review userZ6 F9).
 */
function prefixLookUps(kind: 'SQLite' | 'PostgreSQL', open: () => Promise<Store>): void {
  it(`opens a receipt by the first 8 characters of its id (${kind})`, async () => {
    await runCli(['call', 'fine', '--repo', repo], { env });
    const [receipt] = JSON.parse((await runCli(['receipts', '--json'], { env })).stdout).receipts as Receipt[];
    const run = await runCli(['receipts', receipt!.id.slice(0, 8)], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^receipt   ${receipt!.id}\\n`));
    expect(run.stdout).toContain(`source    ${repo} on ${hostname()}`);
  });

  it(`lists the matches of an ambiguous prefix and exits 1, and takes no character of a prefix as a wildcard (${kind})`, async () => {
    const store = await open();
    const base = { ok: true, tool: 't', method: 'run', output: '', error: null, duration_ms: 1, executor: 'shell', commit: 'c', params: {}, stderr: '', code: null, exit_code: 0, signal: null, timed_out: false, output_bytes: 0, cut_bytes: 0, finished_at: '2026-01-01T00:00:01Z', confirmation: null } as const;
    await store.receipts.save({ ...base, id: 'abcdef12-0000-4000-8000-000000000001', started_at: '2026-01-01T00:00:00Z' });
    await store.receipts.save({ ...base, id: 'abcdef12-0000-4000-8000-000000000002', started_at: '2026-01-01T00:00:01Z' });
    await store.close();
    const run = await runCli(['receipts', 'abcdef12'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^'abcdef12' starts 2 receipts; give more of the id:\n  abcdef12-0000-4000-8000-000000000002 .*\n  abcdef12-0000-4000-8000-000000000001 /);
    // past the dash (a database collation may ignore punctuation), still both
    expect(JSON.parse((await runCli(['receipts', 'abcdef12-0000-4000-8000-00000000000', '--json'], { env })).stdout)).toMatchObject({ code: 'AMBIGUOUS_RECEIPT_PREFIX' });
    expect((await runCli(['receipts', 'abcdef12-0000-4000-8000-000000000001'], { env })).code).toBe(0);
    expect((await runCli(['receipts', 'abcdef12-0000-4000-8000-0000000000012'], { env })).stderr).toMatch(/^no receipt/);
    // LIKE's wildcards are characters of an id like any other
    for (const prefix of ['abcdef1_', 'abcdef1%']) {
      expect((await runCli(['receipts', prefix], { env })).stderr).toMatch(/^no receipt/);
    }
  });
}

describe('hldp receipts <prefix> on the SQLite file', () => {
  prefixLookUps('SQLite', async () => openSqliteStore({ path: join(temp.path, 'data', 'receipts.db') }));
});

describeWithPostgres('hldp receipts <prefix> on PostgreSQL (HLDP_STORE_URL)', () => {
  let database: { url: string; drop: () => Promise<void> };
  beforeEach(async () => {
    database = await createTestDatabase();
    env.HLDP_STORE_URL = database.url;
  });
  afterEach(() => database.drop());
  prefixLookUps('PostgreSQL', () => openPostgresStore({ url: database.url }));
});
