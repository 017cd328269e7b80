import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startGatewayWithLargeReceipts } from '../policy/support.js';

const RECEIPTS = 8;
const MIB = 1024 * 1024;

// a real `hldp serve` over a real SQLite store: an agent's own calls each stored a receipt of about 1 MB of output
describe('GET /v1/receipts over large receipts', () => {
  let gateway: PolicyGateway;
  let url: string;

  beforeAll(async () => {
    gateway = await startGatewayWithLargeReceipts(RECEIPTS);
    url = gateway.url;
  }, 60_000);
  afterAll(() => gateway?.stop());

  describe('when the page limit asks for holds more bytes than a page may', () => {
    it('ends the page early, says so, and next_offset reaches every receipt once', async () => {
      const first = await fetch(`${url}/v1/receipts?limit=1000`, { headers: { authorization: 'Bearer bot-token-0123456789abcdef' } });
      const text = await first.text();
      const page = JSON.parse(text);
      expect(first.status).toBe(200);
      expect(text.length).toBeLessThan(6 * MIB);
      expect(page.receipts.length).toBeGreaterThan(0);
      expect(page.receipts.length).toBeLessThan(RECEIPTS);
      expect(page).toMatchObject({ limit: 1000, offset: 0, next_offset: page.receipts.length, max_bytes: 4 * MIB, ended_early: true });
      // the receipts a page holds are whole: the same as GET /v1/receipts/:id
      expect(page.receipts[0].output).toHaveLength(1_000_001);

      const seen: string[] = page.receipts.map((receipt: { id: string }) => receipt.id);
      let next: number | null = page.next_offset;
      while (next !== null) {
        const more = await api(url, 'GET', `/v1/receipts?limit=1000&offset=${next}`, { who: 'bot' });
        seen.push(...more.body.receipts.map((receipt: { id: string }) => receipt.id));
        next = more.body.next_offset;
      }
      expect(seen).toHaveLength(RECEIPTS);
      expect(new Set(seen).size).toBe(RECEIPTS);
    });
  });

  describe('when the page fits', () => {
    it('answers limit receipts and says nothing ended early', async () => {
      const page = await api(url, 'GET', '/v1/receipts?limit=2', { who: 'bot' });
      expect(page.body.receipts).toHaveLength(2);
      expect(page.body.next_offset).toBe(2);
      expect(page.body.ended_early).toBeUndefined();
    });
  });
});
