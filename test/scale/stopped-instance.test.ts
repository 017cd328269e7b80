import { describe, expect, it } from 'vitest';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { post, useTwoInstances } from './support.js';

// Each instance's receipt and event batches took the cluster-wide advisory lock in a transaction the instance drove
// over several round trips: an instance stopped (SIGSTOP, a long GC, an event loop held by one request) with a batch in
// flight held every other instance's receipts and events until it ran again (review L, L7).
describeWithPostgres('one of two hldp serve processes on one PostgreSQL database stopped while its calls are stored', () => {
  const pair = useTwoInstances();

  describe('when instance A is stopped with SIGSTOP, again and again, while 8 clients keep it storing receipts', () => {
    it('lets instance B store the receipt and the event of each of its calls meanwhile', { timeout: 180_000 }, async () => {
      let loading = true;
      // A's batches are almost always in flight: whatever moment the stop comes, it comes mid-batch or close to one
      const clients = Array.from({ length: 8 }, async (_, client) => {
        for (let index = 0; loading; index += 1) await post(pair.a.url, '/v1/call', { tool: 'echo', params: { word: `a${client}x${index}` } }).catch(() => undefined);
      });
      const late: string[] = [];
      try {
        for (let round = 0; round < 12; round += 1) {
          await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(Math.random() * 100)));
          pair.a.child.kill('SIGSTOP');
          try {
            // long enough for the stop to land wherever A was
            await new Promise((resolve) => setTimeout(resolve, 200));
            const word = `b${round}`;
            const answer = await fetch(`${pair.b.url}/v1/call`, {
              method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'echo', params: { word } }), signal: AbortSignal.timeout(8_000),
            }).then(async (response) => (await response.json()) as { ok: boolean; id: string; error: string | null }, (error: Error) => ({ ok: false, id: '', error: error.message }));
            if (!answer.ok) {
              late.push(`round ${round}: ${answer.error}`);
              continue;
            }
            const [receipt] = await pair.sql<Array<{ id: string }>>`SELECT id FROM receipts WHERE id = ${answer.id}`;
            if (!receipt) late.push(`round ${round}: receipt ${answer.id} answered but not stored: ${answer.error}`);
            // the call's event goes to the log after its answer: B writes it while A is still stopped
            const until = Date.now() + 8_000;
            let event = false;
            while (!event && Date.now() < until) {
              event = (await pair.sql`SELECT 1 FROM events WHERE type = 'receipt.stored' AND strpos(data, ${answer.id}) > 0`).length > 0;
              if (!event) await new Promise((resolve) => setTimeout(resolve, 50));
            }
            if (!event) late.push(`round ${round}: no receipt.stored event for ${answer.id} within 8 s`);
          } finally {
            pair.a.child.kill('SIGCONT');
          }
        }
      } finally {
        loading = false;
        await Promise.all(clients);
      }
      expect(late).toEqual([]);
      // and A, let go, stored its calls too: one unbroken chain
      const verify = await fetch(`${pair.a.url}/v1/receipts/verify`).then((response) => response.json() as Promise<{ ok: boolean; checked: number }>);
      expect(verify.ok).toBe(true);
      expect(verify.checked).toBeGreaterThan(12);
    });
  });
});
