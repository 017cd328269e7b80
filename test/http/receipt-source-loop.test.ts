// Review Z12, Z12-7. The loop tests (readWhileHeld) hold the store's thread's read and ask a /healthz meanwhile: they
// prove the read is off the event loop, not that the work after it is. A non-admin's read of a receipt with 16 MB of
// structured_content walked it a character at a time on the event loop once the thread had read it (Z12-3: 0.5-2 s
// per read) and passed every one of them. This test also weighs the event loop's work for that answer, once the read
// is let go: the CPU time of the gateway's main thread, which no load stretches (a wall-clock bound would).
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { loopCpuMs, readWhileHeld, settled } from '../helpers/beside-healthz.js';
import { makeReceipt } from '../store/support.js';
import { policyRepository, startGateway, TOKENS } from '../policy/support.js';

// 1,000,000 rows of [i, 2i, "ab"]: ~16 MB of structured content after `source` in the canonical text
const ROWS = 1_000_000;
// the main thread's CPU for a non-admin's answer, held read and /healthz included, beyond an admin's read of the same
// receipt (sent as stored, no source to replace), each after a first read that compiled the route: 10-40 ms since
// 726dc4a (60-80 against 50-70), 270-300 ms at 726dc4a~1 (320-360 against 50-60: the walk a character at a time,
// review Z12-3), measured at load ~1. CPU time, which a loaded host does not stretch as it does a wall clock; and a
// difference, which a slower CPU stretches by its ratio only. The bound of 200 ms on the whole answer this test held
// first failed on CI's run of c842e005 (490 ms) with the fix in place: the route's first compile and the tail of the
// start's intent-matching preparation were weighed with the read
const EXTRA_LOOP_CPU_MS = 150;

it("answers a non-admin's read of a receipt with 16 MB of structured_content with little work on the event loop once the store's thread has read it, its source withheld", { timeout: 300_000 }, async () => {
  const { repo, temp } = await policyRepository({});
  try {
    const receipt = makeReceipt({
      id: 'call-structured', tool: 'table', caller: 'bot', source: { host: 'gw-host-7', repository: '/srv/registry', url: 'http://gw-host-7:3900' },
      structured_content: { rows: Array.from({ length: ROWS }, (_, at) => [at, 2 * at, 'ab']) },
    });
    const store = await openStore({ sqlitePath: join(temp.path, 'data', 'receipts.db') });
    try {
      await store.receipts.save(receipt);
    } finally {
      await store.close();
    }
    const holds = join(temp.path, 'holds');
    const gateway = await startGateway(repo, temp.path, { logLevel: 'warn', env: { HLDP_TEST_HOLD_STORE_READS: holds } });
    try {
      const pid = gateway.service.child.pid!;
      await settled(gateway.url, pid, { headers: { authorization: `Bearer ${TOKENS.bot}` } });
      const read = async (who: 'admin' | 'bot') => {
        const before = await loopCpuMs(pid);
        const answer = await readWhileHeld(gateway.url, holds, '/v1/receipts/call-structured', { authorization: `Bearer ${TOKENS[who]}` });
        return { ...answer, spent: (await loopCpuMs(pid)) - before };
      };
      // the first read of a start compiles the route's code (100-150 ms of CPU more): it is not weighed
      await read('admin');
      const admin = await read('admin');
      const { head, bodyBytes, spent } = await read('bot');
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      const body = JSON.parse(dechunked(bodyBytes, /transfer-encoding: chunked/i.test(head)).toString('utf8')) as { source: unknown; structured_content: { rows: unknown[] } };
      expect(body.source).toMatchObject({ repository: 'registry' });
      expect(JSON.stringify(body.source)).not.toContain('gw-host-7');
      expect(body.structured_content.rows).toHaveLength(ROWS);
      expect(spent - admin.spent, `CPU ms of the gateway's main thread for one non-admin read of the receipt (${spent} ms) beyond an admin's read of it (${admin.spent} ms), which sends it as stored`).toBeLessThan(EXTRA_LOOP_CPU_MS);
    } finally {
      await gateway.service.stop();
    }
  } finally {
    await temp.cleanup();
  }
});

/** An HTTP/1.1 body as sent, its chunked framing taken off when it has one. */
function dechunked(body: Buffer, chunked: boolean): Buffer {
  if (!chunked) return body;
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
