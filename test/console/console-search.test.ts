import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_ROWS } from '../../src/console/index.js';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { makeTempDir } from '../helpers/git.js';
import { startTestServer } from '../helpers/http-server.js';
import { makeReceipt } from '../store/support.js';

const TOKEN = 'console-search-token-0123456789';

// the real HTTP app over a real SQLite store holding one failure with a rare text, and more newer failures than a search reads
describe('the console\'s search (q=)', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let cookie: string;

  beforeAll(async () => {
    temp = await makeTempDir('hldp-console-search-');
    server = await startTestServer(await makeConsoleRepository(temp.path), { HLDP_API_TOKEN: TOKEN });
    const failed = { ok: false, code: 'NONZERO_EXIT' as const, exit_code: 1, output: '' };
    await server.gateway.store.receipts.save(makeReceipt({ ...failed, code: 'TIMEOUT', id: 'oldest', error: 'a needle in the oldest call\n', started_at: '2026-01-01T00:00:00.000Z' }));
    const saving: Array<Promise<void>> = [];
    for (let index = 0; index < SEARCH_ROWS; index += 1) {
      saving.push(server.gateway.store.receipts.save(makeReceipt({ ...failed, id: `newer-${index}`, error: 'hay\n', started_at: new Date(Date.parse('2026-02-01T00:00:00.000Z') + index * 1000).toISOString() })));
    }
    await Promise.all(saving);
    const signIn = await fetch(`${server.url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(server.url).origin }, body: new URLSearchParams({ token: TOKEN }) });
    cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  }, 120_000);
  afterAll(async () => {
    await server?.cleanup();
    await temp?.cleanup();
  });

  const rows = async (query: string): Promise<string> => {
    const response = await fetch(`${server.url}/console/failures/rows?${query}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    return response.text();
  };

  describe('when more calls meet the other filters than a search reads', () => {
    it('searches only the newest of them, and says how to reach older ones', async () => {
      const page = await (await fetch(`${server.url}/console/failures?q=needle`, { headers: { cookie } })).text();
      expect(page).not.toContain('data-receipt="oldest"');
      expect(page).toContain(`reads only the newest ${SEARCH_ROWS.toLocaleString('en')} calls that meet the other filters, and of them at most 16 MiB (fewer calls when their output is large); set To earlier`);
      expect(await rows('q=needle')).not.toContain('data-receipt="oldest"');
    });

    it('finds an older call once Until narrows the calls searched', async () => {
      expect(await rows('q=needle&until=2026-01-31T00:00')).toContain('data-receipt="oldest"');
    });
  });

  // review J F3: code= read the stored body of every call the viewer may see, unbounded, even beside q=
  describe('when a code is asked of more calls than a search reads', () => {
    it('looks for it in the newest of them only, and says so', async () => {
      const page = await (await fetch(`${server.url}/console/failures?status=all&code=TIMEOUT`, { headers: { cookie } })).text();
      expect(page).not.toContain('data-receipt="oldest"');
      expect(page).toContain(`reads only the newest ${SEARCH_ROWS.toLocaleString('en')} calls that meet the other filters`);
      expect(await rows('status=all&code=TIMEOUT')).not.toContain('data-receipt="oldest"');
      expect(await rows('code=TIMEOUT&q=needle')).not.toContain('data-receipt="oldest"');
    });

    it('finds an older call once Until narrows the calls read', async () => {
      expect(await rows('code=TIMEOUT&until=2026-01-31T00:00')).toContain('data-receipt="oldest"');
      expect(await rows('code=NONZERO_EXIT&until=2026-01-31T00:00')).not.toContain('data-receipt="oldest"');
    });
  });
});
