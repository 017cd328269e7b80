// A tool's output is whatever it printed, NULs among it. On PostgreSQL the console's search and its code filter read
// each candidate's output, error and code with `body::json ->> …`, which refuses a stored text holding `\u0000` or a
// lone surrogate's escape anywhere ("unsupported Unicode escape sequence"): one such call among the newest 10,000 made
// every search a 500, and a filter value holding a NUL (`q=a%00b`, `tool=…%00`) failed the query too. A real
// `hldp serve` on each store, a real shell tool printing `alpha\0beta` and bytes that are not UTF-8: the call is stored
// whole, listed, found by a word beside the NUL, read back byte for byte, and both stores answer the same.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { canonicalReceiptText } from '../../src/store/index.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome, type ServiceHome } from '../helpers/serve-process.js';

const listed = (page: string): string[] => [...page.matchAll(/data-receipt="([^"]+)"/g)].map((match) => match[1]!);

// YAML double-quoted: `\\` is one backslash, so the shell reads printf's own `\000` (NUL) and `\377` (not UTF-8)
const TOOLS = {
  'tools/nul-out/TOOL.hdlp': makeToolYaml('nul-out', { executor: 'shell', shell: String.raw`{ script: "printf 'alpha\\000beta \\377 Gamma'" }` }),
  'tools/nul-err/TOOL.hdlp': makeToolYaml('nul-err', { executor: 'shell', shell: String.raw`{ script: "printf 'boom\\000Delta' >&2; exit 3" }` }),
  'tools/plain/TOOL.hdlp': makeToolYaml('plain', { executor: 'shell', shell: '{ argv: [echo, plain words] }' }),
};

function suite(home: ServiceHome, database: () => Promise<{ url: string; drop: () => Promise<void> } | undefined>): void {
  it('stores a call whose output holds NUL, lists it, finds it by a word beside the NUL and reads it back byte for byte', async () => {
    const made = await database();
    try {
      const repo = join(home.path, 'repo');
      await writeFiles(repo, TOOLS);
      const env = made ? { HLDP_STORE_URL: made.url } : {};
      const server = await home.serve(['--repo', repo], env);
      const call = async (tool: string): Promise<Receipt> =>
        (await (await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) })).json()) as Receipt;
      const out = await call('nul-out');
      expect(out).toMatchObject({ ok: true, output: 'alpha\u0000beta \ufffd Gamma' });
      const err = await call('nul-err');
      expect(err).toMatchObject({ ok: false, code: 'NONZERO_EXIT', error: 'boom\u0000Delta' });
      const plain = await call('plain');

      // the API: each receipt's stored text, byte for byte, alone and in a page
      for (const receipt of [out, err, plain]) {
        const one = await fetch(`${server.url}/v1/receipts/${receipt.id}`);
        expect(one.status).toBe(200);
        expect(Buffer.from(await one.arrayBuffer()).equals(Buffer.from(canonicalReceiptText(receipt)))).toBe(true);
      }
      const page = await fetch(`${server.url}/v1/receipts`);
      expect(page.status).toBe(200);
      expect(((await page.json()) as { receipts: Receipt[] }).receipts).toEqual([plain, err, out]);
      expect((await fetch(`${server.url}/v1/receipts?tool=nul%00out`)).status).toBe(200);
      expect((await fetch(`${server.url}/v1/receipts/${out.id}%00`)).status).toBe(404);

      // the console: the list, the search by a word on either side of the NUL, the code filter, the view, the raw bytes
      const cookie = await signInToConsole(server.url, '');
      const read = async (path: string): Promise<string> => {
        const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
        const body = await response.text();
        expect(response.status, `${path}: ${body.slice(0, 400)}`).toBe(200);
        return body;
      };
      expect(listed(await read('/console/failures?status=all'))).toEqual([plain.id, err.id, out.id]);
      expect(listed(await read('/console/failures'))).toEqual([err.id]);
      expect(listed(await read('/console/failures?status=all&q=alpha'))).toEqual([out.id]);
      expect(listed(await read('/console/failures?status=all&q=BETA'))).toEqual([out.id]);
      expect(listed(await read('/console/failures?status=all&q=gamma'))).toEqual([out.id]);
      expect(listed(await read('/console/failures?status=all&q=delta'))).toEqual([err.id]);
      expect(listed(await read('/console/failures?status=all&q=words'))).toEqual([plain.id]);
      expect(listed(await read('/console/failures?status=all&q=a%00b'))).toEqual([out.id]);
      expect(listed(await read('/console/failures?status=all&code=NONZERO_EXIT'))).toEqual([err.id]);
      expect(listed(await read('/console/failures?status=all&code=NONZERO_EXIT&q=boom'))).toEqual([err.id]);
      expect(listed(await read('/console/failures?status=all&tool=nul%00out&caller=a%00&session=%00'))).toEqual([]);
      expect(listed(await read('/console/failures?status=all&code=X%00&q=alpha'))).toEqual([]);
      expect(await read(`/console/receipts/${out.id}`)).toContain('alpha');
      expect((await fetch(`${server.url}/console/receipts/${out.id}%00`, { headers: { cookie } })).status).toBe(404);
      const raw = await fetch(`${server.url}/console/receipts/${out.id}/raw/output`, { headers: { cookie } });
      expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(out.output))).toBe(true);
      await server.stop();

      // the CLI, on the same store
      const cli = { env: { ...home.env, ...env } };
      const list = await runCli(['receipts', '--json'], cli);
      expect(list.code, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { receipts: Receipt[] }).receipts).toEqual([plain, err, out]);
      const shown = await runCli(['receipts', out.id, '--json'], cli);
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toEqual(out);
    } finally {
      await made?.drop();
    }
  }, 180_000);
}

describe('hldp serve on SQLite with a call whose output holds NUL', () => {
  suite(useServiceHome('warn'), async () => undefined);
});

describeWithPostgres('hldp serve on PostgreSQL with a call whose output holds NUL', () => {
  suite(useServiceHome('warn'), createTestDatabase);
});
