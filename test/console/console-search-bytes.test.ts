import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_BYTES } from '../../src/console/index.js';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { makeTempDir } from '../helpers/git.js';
import { startTestServer } from '../helpers/http-server.js';
import { makeReceipt } from '../store/support.js';

const TOKEN = 'console-search-token-0123456789';
const MIB = 1024 * 1024;

// A search read the newest 10,000 calls whatever their size: over calls of 1 MiB output each it parsed hundreds of
// MB on the event loop (review E12). It now reads at most SEARCH_BYTES of stored calls, the newest first.
describe('the console\'s search (q=) over large calls', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let cookie: string;

  beforeAll(async () => {
    temp = await makeTempDir('hldp-console-search-bytes-');
    server = await startTestServer(await makeConsoleRepository(temp.path), { HLDP_API_TOKEN: TOKEN });
    const failed = { ok: false, code: 'NONZERO_EXIT' as const, exit_code: 1 };
    await server.gateway.store.receipts.save(makeReceipt({ ...failed, id: 'old-needle', output: '', error: 'a needle in an older call\n', started_at: '2026-01-01T00:00:00.000Z' }));
    const large = Math.ceil(SEARCH_BYTES / MIB) + 4;
    for (let index = 0; index < large; index += 1) {
      await server.gateway.store.receipts.save(makeReceipt({ ...failed, id: `large-${index}`, output: 'h'.repeat(MIB), error: index === large - 1 ? 'the newest needle\n' : 'hay\n', started_at: new Date(Date.parse('2026-02-01T00:00:00.000Z') + index * 1000).toISOString() }));
    }
    const signIn = await fetch(`${server.url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(server.url).origin }, body: new URLSearchParams({ token: TOKEN }) });
    cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
    await temp?.cleanup();
  });

  const rows = async (query: string): Promise<string> => {
    const response = await fetch(`${server.url}/console/failures/rows?${query}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    return response.text();
  };

  describe('when the newest calls hold more bytes than a search reads', () => {
    it('searches only the newest that fit, and says so', async () => {
      const page = await (await fetch(`${server.url}/console/failures?q=needle`, { headers: { cookie } })).text();
      expect(page).toContain('and of them at most 16 MiB (fewer calls when their output is large)');
      expect(page).toContain('data-receipt="large-');
      expect(page).not.toContain('data-receipt="old-needle"');
    });

    it('finds the older call once To narrows the calls searched', async () => {
      expect(await rows('q=needle&until=2026-01-31T00:00')).toContain('data-receipt="old-needle"');
    });
  });
});
