import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { type PolicyGateway, startGatewayWithLargeReceipts, TOKENS } from '../policy/support.js';

const RECEIPTS = 8;

// The console's plain list (no q=) read a page of 50 calls whole, whatever their size: an agent signed in to the
// console made each request read ~51 MB of 1 MB receipts (review F2). A page now reads at most LIST_BYTES (4 MiB) of
// stored calls, as GET /v1/receipts does, ends early and says so, and Older → continues from the next call.
// A real `hldp serve` over a real SQLite store; the agent's own calls each stored a receipt of about 1 MB of output.
describe('the console\'s call list over large calls', () => {
  let gateway: PolicyGateway;
  let url: string;
  let cookie: string;

  beforeAll(async () => {
    gateway = await startGatewayWithLargeReceipts(RECEIPTS);
    url = gateway.url;
    // the agent signs in to the console with its own token
    cookie = await signInToConsole(url, TOKENS.bot);
  }, 60_000);
  afterAll(() => gateway?.stop());

  const listed = (text: string): string[] => [...text.matchAll(/data-receipt="([^"]+)"/g)].map((match) => match[1]!);
  const get = async (path: string): Promise<string> => {
    const response = await fetch(`${url}${path}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    return response.text();
  };

  describe('when the newest calls hold more bytes than a page reads', () => {
    it('lists only the calls that fit, says the page ended early, and Older → reaches every call once', async () => {
      const first = await get('/console/failures?status=all');
      const shown = listed(first);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.length).toBeLessThan(RECEIPTS);
      expect(first).toContain('data-code="ENDED_EARLY"');
      expect(first).toContain(`This page lists ${shown.length} of 50 calls: the next would have taken it past 4 MiB of stored calls`);

      const seen = [...shown];
      let page = first;
      for (let next = /href="\/console\/failures\?([^"]*)">Older →/.exec(page); next; next = /href="\/console\/failures\?([^"]*)">Older →/.exec(page)) {
        page = await get(`/console/failures/rows?${next[1]!.replaceAll('&amp;', '&')}`);
        seen.push(...listed(page));
        expect(seen.length).toBeLessThanOrEqual(RECEIPTS);
      }
      expect(seen).toHaveLength(RECEIPTS);
      expect(new Set(seen).size).toBe(RECEIPTS);
    });
  });

  describe('when the page fits', () => {
    it('lists every call left and says nothing ended early', async () => {
      const rows = await get(`/console/failures/rows?status=all&offset=${RECEIPTS - 2}`);
      expect(listed(rows)).toHaveLength(2);
      expect(rows).not.toContain('ENDED_EARLY');
      expect(rows).not.toContain('Older →');
    });
  });
});
