// A call whose answer is huge had its receipt written on `hldp serve`'s event loop (canonical text, SHA-256, one
// SQLite insert of tens of MB): every other request waited seconds. Such receipts are now written in a thread of the
// store's own; through a real server, with small calls alongside, every receipt is stored and the chain verifies.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const BYTES = 3_000_000;

const post = async (url: string, body: unknown): Promise<Receipt> =>
  (await (await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Receipt;

describe('hldp serve storing a huge receipt among small ones', () => {
  it('answers every call whole, stores every receipt, and its chain verifies, also after a restart', async () => {
    const repo = join(home.path, 'repo');
    await writeFiles(repo, {
      'tools/huge/TOOL.hdlp': makeToolYaml('huge', { executor: 'shell', shell: `{ script: "head -c ${BYTES} /dev/zero" }`, constraints: `{ max_output_bytes: ${BYTES} }` }),
      'tools/small/TOOL.hdlp': makeToolYaml('small', { executor: 'shell', shell: '{ argv: [echo, small] }' }),
    });
    const server = await home.serve(['--repo', repo]);
    const [huge, ...small] = await Promise.all([post(server.url, { tool: 'huge', params: {} }), ...Array.from({ length: 4 }, () => post(server.url, { tool: 'small', params: {} }))]);
    expect(huge).toMatchObject({ ok: true, output_bytes: BYTES, cut_bytes: 0 });
    expect(huge.output).toBe('\u0000'.repeat(BYTES));
    expect(huge.error).toBeNull();
    for (const receipt of small) expect(receipt).toMatchObject({ ok: true, output: 'small\n', error: null });
    const verified = (await (await fetch(`${server.url}/v1/receipts/verify`)).json()) as { ok: boolean; checked: number };
    expect(verified).toMatchObject({ ok: true, checked: 5 });
    const listed = (await (await fetch(`${server.url}/v1/receipts?tool=small`)).json()) as { receipts: Receipt[] };
    expect(listed.receipts.map((receipt) => receipt.id).sort()).toEqual(small.map((receipt) => receipt.id).sort());
    await server.stop();

    const again = await home.serve(['--repo', repo]);
    expect((await (await fetch(`${again.url}/v1/receipts/${huge.id}`)).json()) as Receipt).toMatchObject({ id: huge.id, output_bytes: BYTES });
    await post(again.url, { tool: 'small', params: {} });
    expect(await (await fetch(`${again.url}/v1/receipts/verify`)).json()).toMatchObject({ ok: true, checked: 6 });
  }, 240_000);
});
