// On PostgreSQL a huge receipt was written and read on `hldp serve`'s event loop: its canonical text, the driver's array
// parameter of it (escaped again), and for GET /v1/receipts/:id the whole row made into one Buffer and one string in
// one turn. Its store's writer thread now does both on a connection of its own; through a real server the receipt comes
// back byte for byte, in the form a small one's does, and the chain verifies whichever way each receipt was written.
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { canonicalReceiptText, openPostgresStore } from '../../src/store/index.js';
import { connect } from '../../src/store/postgres/database.js';
import { PostgresReceiptStore } from '../../src/store/postgres/postgres-receipts.js';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { makeReceipt } from '../store/support.js';

const home = useServiceHome('warn');
const BYTES = 3_000_000;

/** A receipt saved as the code before this change saved every one: its text made and sent on the pool's own thread. */
async function savedOnTheEventLoop(url: string, receipt: Receipt): Promise<void> {
  await (await openPostgresStore({ url })).close();
  const sql = connect({ url, poolMax: 1 });
  try {
    // connected first, as the store's migrations connect it: the driver learns the array types as it connects
    await sql`SELECT 1`;
    await new PostgresReceiptStore(sql, { now: Date.now }).save(receipt);
  } finally {
    await sql.end();
  }
}

/** GET /v1/receipts/:id: its status, content type and body as bytes. */
async function got(url: string, id: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(`${url}/v1/receipts/${id}`);
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

describeWithPostgres('hldp serve on PostgreSQL with a huge receipt', () => {
  describe('when a call answers 3 MB of NULs (18 MB of stored text)', () => {
    it('stores it from its writer thread, sends it back byte for byte as a small one is sent, and the chain verifies', async () => {
      const database = await createTestDatabase();
      try {
        // one large receipt written as before, on the event loop of the process that saved it
        const before = makeReceipt({ id: 'written-before', output: 'é😀\u0000'.repeat(100_000) });
        await savedOnTheEventLoop(database.url, before);
        const repo = join(home.path, 'repo');
        await writeFiles(repo, {
          'tools/huge/TOOL.hdlp': makeToolYaml('huge', { executor: 'shell', shell: `{ script: "head -c ${BYTES} /dev/zero" }`, constraints: `{ max_output_bytes: ${BYTES} }` }),
          'tools/small/TOOL.hdlp': makeToolYaml('small', { executor: 'shell', shell: '{ argv: [echo, small] }' }),
        });
        const server = await home.serve(['--repo', repo], { HLDP_STORE_URL: database.url });
        const call = async (tool: string): Promise<Receipt> =>
          (await (await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) })).json()) as Receipt;
        const huge = await call('huge');
        expect(huge).toMatchObject({ ok: true, output_bytes: BYTES, cut_bytes: 0 });
        const small = await call('small');

        // the huge one went through the writer's own connection, which the code before did not have
        const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
        const names = await sql<Array<{ name: string }>>`SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE datname = current_database()`;
        await sql.end();
        expect(names.map((row) => row.name)).toContain('brush-holder receipt writer');

        for (const receipt of [huge, before, small]) {
          const answer = await got(server.url, receipt.id);
          expect(answer).toMatchObject({ status: 200, type: 'application/json; charset=utf-8' });
          expect(answer.body.equals(Buffer.from(canonicalReceiptText(receipt)))).toBe(true);
        }
        expect(await got(server.url, 'no-such-receipt')).toMatchObject({ status: 404 });
        // the walk of the served gateway: the large texts read and hashed by its writer thread, in the walk's snapshot
        expect(await (await fetch(`${server.url}/v1/receipts/verify`)).json()).toMatchObject({ ok: true, checked: 3 });
        await server.stop();

        const verified = await runCli(['receipts', 'verify'], { env: { ...home.env, HLDP_STORE_URL: database.url } });
        expect(verified.stdout).toMatch(/^intact: 3 receipts from genesis to head seq 3\n/);
        expect(verified.code).toBe(0);
      } finally {
        await database.drop();
      }
    }, 240_000);
  });
});
