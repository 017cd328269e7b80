import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { commitFiles, makeToolYaml } from '../helpers/git.js';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { get, load, post, sendWebhook, startInstance, useTwoInstances } from './support.js';

describeWithPostgres('two hldp serve processes on one PostgreSQL database', () => {
  // started together: both run the migrations at once
  const pair = useTwoInstances({ sql: { types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } } } });

  const stored = async (): Promise<number> => (await pair.sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM receipts`)[0]!.n;

  describe('when 64 clients send 2,000 calls spread over both', () => {
    // 2,000 calls through two real servers: on CI's loaded 2 cores this takes most of a minute, which is not what it tests
    it('stores 2,000 receipts: none lost, none twice, one unbroken chain', { timeout: 180_000 }, async () => {
      const before = await stored();
      const answers = await load(2000, 64, (index, client) => post(client % 2 ? pair.b.url : pair.a.url, '/v1/call', { tool: 'echo', params: { word: `w${index}` } }));
      expect(answers.filter((answer) => answer.status !== 200 || !answer.json.ok)).toEqual([]);
      expect(new Set(answers.map((answer) => answer.json.output))).toHaveLength(2000);
      const ids = answers.map((answer) => answer.json.id as string);
      const [row] = await pair.sql<Array<{ rows: number; ids: number }>>`SELECT count(*)::int AS rows, count(DISTINCT id)::int AS ids FROM receipts WHERE id = ANY(${ids})`;
      expect(row).toEqual({ rows: 2000, ids: 2000 });
      expect((await stored()) - before).toBe(2000);
      const [fromB, fromA] = [await get(pair.b.url, `/v1/receipts/${ids[0]}`), await get(pair.a.url, `/v1/receipts/${ids[1]}`)];
      expect([fromB.json, fromA.json]).toEqual([answers[0]!.json, answers[1]!.json]);
      expect((await get(pair.a.url, '/v1/receipts/verify')).json).toMatchObject({ ok: true, head: { seq: before + 2000 } });
    });
  });

  describe('when a stored receipt is tampered with', () => {
    const head = async (): Promise<number> => (await pair.sql<Array<{ seq: number }>>`SELECT seq FROM receipt_chain`)[0]!.seq;
    it.each([
      ['an edited output', async (seq: number) => {
        const [row] = await pair.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE seq = ${seq}`;
        await pair.sql`UPDATE receipts SET body = ${row!.body.replace(/"output":"[^"]*"/, '"output":"all fine"')} WHERE seq = ${seq}`;
        return () => pair.sql`UPDATE receipts SET body = ${row!.body} WHERE seq = ${seq}`;
      }],
      ['a deleted receipt', async (seq: number) => {
        const [row] = await pair.sql`SELECT * FROM receipts WHERE seq = ${seq}`;
        await pair.sql`DELETE FROM receipts WHERE seq = ${seq}`;
        return () => pair.sql`INSERT INTO receipts ${pair.sql(row!)}`;
      }],
      ['two swapped receipts', async (seq: number) => {
        const swap = () => pair.sql.begin(async (transaction) => {
          await transaction`UPDATE receipts SET seq = -1 WHERE seq = ${seq}`;
          await transaction`UPDATE receipts SET seq = ${seq} WHERE seq = ${seq + 1}`;
          await transaction`UPDATE receipts SET seq = ${seq + 1} WHERE seq = -1`;
        });
        await swap();
        return swap;
      }],
    ])('verify at either instance names the first broken seq after %s, and the CLI does too', async (_case, tamper) => {
      const seq = Math.max(1, (await head()) - 10);
      expect((await get(pair.b.url, '/v1/receipts/verify')).json.ok).toBe(true);
      const restore = await tamper(seq);
      expect((await get(pair.b.url, '/v1/receipts/verify')).json).toMatchObject({ ok: false, broken: { seq } });
      const cli = await runCli(['receipts', 'verify', '--json'], { env: { HLDP_STORE_URL: pair.database.url } });
      expect(cli.code).toBe(1);
      expect(JSON.parse(cli.stdout)).toMatchObject({ ok: false, broken: { seq } });
      await restore();
      expect((await get(pair.a.url, '/v1/receipts/verify')).json.ok).toBe(true);
    });
  });

  describe('when 20 confirmations of one token arrive at once at both instances', () => {
    it('runs the call exactly once', async () => {
      const asked = await post(pair.a.url, '/v1/call', { tool: 'once', params: { mark: 'exactly' } });
      expect(asked.status).toBe(202);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => post(index % 2 ? pair.b.url : pair.a.url, '/v1/confirm', { token: asked.json.token })));
      expect(answers.filter((answer) => answer.status === 200).map((answer) => answer.json.ok)).toEqual([true]);
      expect(answers.filter((answer) => answer.status === 409).map((answer) => answer.json.reason)).toEqual(Array(19).fill('used'));
      expect(await readFile(join(pair.world.workspace, 'runs-exactly.log'), 'utf8')).toBe('ran\n');
    });
  });

  describe('when a signed push webhook reaches instance A', () => {
    it('makes instance B, which polls nothing, serve the new commit', async () => {
      expect((await get(pair.b.url, '/v1/tools/fresh')).status).toBe(404);
      const commit = await commitFiles(pair.world.repo, { 'tools/fresh/TOOL.hdlp': makeToolYaml('fresh', { executor: 'hldp-api', method: 'get', http: '{ method: GET, path: "/echo/fresh" }' }) });
      const sent = Date.now();
      expect((await sendWebhook(pair.a.url)).status).toBe(202);
      // B learns of the push only through A: its poll is off
      let served = await get(pair.b.url, '/healthz');
      while (served.json.commit !== commit && Date.now() - sent < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        served = await get(pair.b.url, '/healthz');
      }
      expect(served.json.commit).toBe(commit);
      expect((await post(pair.b.url, '/v1/call', { tool: 'fresh', params: {} })).json).toMatchObject({ ok: true, output: 'fresh', commit });
    });
  });

  describe('when an MCP client\'s requests alternate between the instances', () => {
    it('keeps one session working across both', async () => {
      const seen = { a: 0, b: 0 };
      let turn = 0;
      // every request of the client goes to the other instance than the one before
      const alternating: typeof fetch = (input, init) => {
        const target = turn++ % 2 ? pair.b : pair.a;
        seen[target === pair.a ? 'a' : 'b'] += 1;
        const url = new URL(input instanceof Request ? input.url : String(input));
        return fetch(`${target.url}${url.pathname}${url.search}`, init);
      };
      const client = new Client({ name: 'alternating-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${pair.a.url}/mcp`), { fetch: alternating });
      await client.connect(transport);
      try {
        for (let round = 0; round < 3; round++) {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
          const result = await client.callTool({ name: 'echo', arguments: { word: `mcp${round}` } });
          expect(result).toMatchObject({ content: [{ type: 'text', text: `mcp${round}` }] });
          expect((await get(pair.a.url, `/v1/receipts/${(result.structuredContent as { id: string }).id}`)).json).toMatchObject({ output: `mcp${round}` });
        }
        expect(seen.a).toBeGreaterThanOrEqual(3);
        expect(seen.b).toBeGreaterThanOrEqual(3);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
      const [open] = await pair.sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM mcp_sessions WHERE id = ${transport.sessionId ?? ''}`;
      expect(open!.n).toBe(0);
    });
  });

  describe('when one instance is killed with SIGKILL mid-load', () => {
    // a cold third instance and 600 calls: 1.3-2.0 s on quiet full runs, 23-25 s of the 60 s default at load 25-27 here
    it('the other keeps serving, and every answered call has its receipt', { timeout: 180_000 }, async () => {
      const doomed = await startInstance(pair.world, pair.database.url);
      pair.extra.push(doomed);
      let answered = 0;
      let killed = false;
      const answers = await load(600, 32, async (index, client) => {
        const target = client % 2 ? pair.b : doomed;
        if (answered >= 150 && !killed) {
          killed = true;
          doomed.child.kill('SIGKILL');
        }
        try {
          const answer = await post(target.url, '/v1/call', { tool: 'echo', params: { word: `k${index}` } });
          answered += 1;
          return { target: target === pair.b ? 'b' : 'doomed', answer };
        } catch {
          return { target: target === pair.b ? 'b' : 'doomed', answer: undefined };
        }
      });
      expect(killed).toBe(true);
      const fromB = answers.filter((entry) => entry.target === 'b');
      expect(fromB.every((entry) => entry.answer?.status === 200 && entry.answer.json.ok)).toBe(true);
      const answeredIds = answers.flatMap((entry) => (entry.answer?.status === 200 ? [entry.answer.json.id as string] : []));
      expect(answers.some((entry) => entry.target === 'doomed' && entry.answer === undefined)).toBe(true);
      const [row] = await pair.sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM receipts WHERE id = ANY(${answeredIds})`;
      expect(row!.n).toBe(answeredIds.length);
      expect((await get(pair.b.url, '/v1/receipts/verify')).json.ok).toBe(true);
    });
  });

  describe('when retention prunes while calls come in', () => {
    // 800 calls and a cold start, like the 2,000 calls above: past a minute on CI's loaded 2 cores (60 s at load 28)
    it('deletes down to max_rows during the load, fails no call, and the chain still verifies', { timeout: 180_000 }, async () => {
      const pruning = await startInstance(pair.world, pair.database.url, { config: 'receipts: { retention: { max_rows: 300, interval_ms: 1000 } }\n' });
      pair.extra.push(pruning);
      const started = Date.now();
      const answers = await load(800, 32, (index, client) => post(client % 2 ? pair.b.url : pruning.url, '/v1/call', { tool: 'echo', params: { word: `p${index}` } }));
      const ended = Date.now();
      expect(answers.filter((answer) => answer.status !== 200 || !answer.json.ok)).toEqual([]);
      const during = await pair.sql<Array<{ seq: number }>>`SELECT seq FROM receipt_checkpoints WHERE pruned_ms BETWEEN ${started} AND ${ended}`;
      expect(during.length).toBeGreaterThan(0);
      const report = (await get(pair.a.url, '/v1/receipts/verify')).json;
      expect(report).toMatchObject({ ok: true });
      expect(report.checkpoint.seq).toBeGreaterThan(0);
      // what is left is the newest receipts, unbroken from the checkpoint on
      expect(report.checked).toBe(report.head.seq - report.checkpoint.seq);
    });
  });
});
