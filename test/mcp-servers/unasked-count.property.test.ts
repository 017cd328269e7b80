import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/property-runs.js';
import { CALLS_HELD, UNASKED_BYTES_PER_SECOND, UNASKED_PER_SECOND, UnaskedCount } from '../../src/mcp-servers/unasked-count.js';

// The count of unasked messages, on a clock the test holds (review Z19). An HTTP server's logs come on a stream with no
// order against a call's answer, so the gateway reads a call's batch during the call and after its answer in any
// proportion, however fast it reads against the server's writing (Z19-6: a rule that held at one reading speed failed
// at another). Here the reads are cut anywhere, and the clock stands still, so the bucket never refills.
const PER_CALL = 20_000;

/** A call: how many messages it logs (at most PER_CALL), and how many of what is unread the gateway reads during the call (before and after the server wrote them) and after its answer, as shares of what is there to read. */
const aCall = fc.record({
  logged: fc.oneof(fc.constant(PER_CALL), fc.nat(PER_CALL)),
  readBefore: fc.double({ min: 0, max: 1, noNaN: true }),
  readDuring: fc.double({ min: 0, max: 1, noNaN: true }),
  readAfter: fc.double({ min: 0, max: 1, noNaN: true }),
});

describe('UnaskedCount, an HTTP server logging on a stream of its own', () => {
  it(`never stops a server logging at most ${PER_CALL} a call, read at any speed, while the gateway is at most ${CALLS_HELD} calls behind; and lets through no more than the calls allow`, () => {
    fc.assert(
      fc.property(fc.array(aCall, { minLength: 1, maxLength: CALLS_HELD }), fc.boolean(), (calls, busyBefore) => {
        const count = new UnaskedCount(PER_CALL, () => 0);
        // a server that spent the bucket before its calls: nothing of the calls' tail may lean on it
        let refused = 0;
        if (busyBefore) for (let index = 0; index < UNASKED_PER_SECOND; index += 1) if (!count.allows(false)) refused += 1;
        let unread = 0;
        const read = (share: number, waiting: boolean): void => {
          const messages = Math.floor(unread * share);
          for (let index = 0; index < messages; index += 1) if (!count.allows(waiting)) refused += 1;
          unread -= messages;
        };
        for (const call of calls) {
          count.called();
          read(call.readBefore, true);
          unread += call.logged;
          read(call.readDuring, true);
          // the answer: what is left is read with no request waiting
          read(call.readAfter, false);
        }
        read(1, false);
        expect(refused).toBe(0);
        // past what the calls gave and the bucket, a flood is stopped
        let flood = 0;
        while (count.allows(false)) flood += 1;
        expect(flood).toBeLessThanOrEqual(calls.length * PER_CALL + UNASKED_PER_SECOND);
      }),
      { numRuns: runs(60) },
    );
  });

  it(`holds at most ${CALLS_HELD} calls' allowance: calls that logged nothing do not bank a flood`, () => {
    const count = new UnaskedCount(PER_CALL, () => 0);
    for (let index = 0; index < 100; index += 1) count.called();
    let flood = 0;
    while (count.allows(false)) flood += 1;
    expect(flood).toBe(CALLS_HELD * PER_CALL + UNASKED_PER_SECOND);
  });
});

/** Sends `bursts` as [ms, messages] in order with no request waiting, after one call; the number of messages sent until the first refused, or undefined. */
function stoppedAfter(perCall: number, bursts: Array<[number, number]>): number | undefined {
  let clock = 0;
  const count = new UnaskedCount(perCall, () => clock);
  count.called();
  let sent = 0;
  for (const [at, messages] of bursts) {
    clock = at;
    for (let index = 0; index < messages; index += 1) {
      sent += 1;
      if (!count.allows(false)) return sent;
    }
  }
  return undefined;
}

const every = (ms: number, messages: number, times: number, from = 0): Array<[number, number]> => Array.from({ length: times }, (_, index) => [from + index * ms, messages]);

describe('UnaskedCount between calls', () => {
  it('stops a server bursting with quiet seconds between the bursts (Z19-4: never stopped by "3 s running past the count")', () => {
    // 100,000 every 2.1 s: the call's allowance, then the bucket
    expect(stoppedAfter(PER_CALL, every(2100, 100_000, 20))).toBe(PER_CALL + UNASKED_PER_SECOND + 1);
    // 20,000 every 2.1 s: the first burst spends the call's allowance, the second the bucket
    expect(stoppedAfter(PER_CALL, every(2100, 20_000, 20))).toBe(PER_CALL + UNASKED_PER_SECOND + 1);
    // two bursts of 1,500 a second apart, then two quiet seconds (review Z19's pairs), once the call's allowance is spent
    const pairs = Array.from({ length: 20 }, (_, index): [number, number] => [10_000 + Math.floor(index / 2) * 3300 + (index % 2) * 1050, 1500]);
    expect(stoppedAfter(PER_CALL, [[0, PER_CALL], ...pairs])).toBe(PER_CALL + UNASKED_PER_SECOND + 1);
  });

  it("lets a server sending at the rate go on for good, and stops a steady flood past it once it spent the call's allowance and the bucket: allowance / rate + bucket / (rate - 1,000) s", () => {
    expect(stoppedAfter(PER_CALL, every(1000, UNASKED_PER_SECOND, 600, 1000))).toBeUndefined();
    // 2,000 a second, 2 ms apart each: the call's 20,000 in 10 s, then the bucket's 1,000 falls by 1,000 a second
    const steady = Array.from({ length: 60_000 }, (_, index): [number, number] => [index / 2, 1]);
    const seconds = stoppedAfter(PER_CALL, steady)! / 2000;
    expect(seconds).toBeGreaterThan(10.5);
    expect(seconds).toBeLessThan(11.5);
  });

  it("holds a stdio server (no call's allowance) to a second's worth at once", () => {
    expect(stoppedAfter(0, every(1000, UNASKED_PER_SECOND, 600))).toBeUndefined();
    expect(stoppedAfter(0, [[0, UNASKED_PER_SECOND + 1]])).toBe(UNASKED_PER_SECOND + 1);
  });
});

// Review Z21, Z21-5: a few notifications of 4-30 MB between calls never neared the count of messages. Bytes are counted
// as they arrive, in chunks cut anywhere (a message's bytes may come in any number of them), against a budget beside it.
const PER_CALL_BYTES = 16 * 1024 * 1024;

/** Chunk sizes as a pipe or a socket may cut `total` bytes (at most 64 KiB each), from cut points drawn as shares. */
function chunks(total: number, cuts: number[]): number[] {
  const points = [...new Set(cuts.map((share) => Math.floor(share * total)))].filter((point) => point > 0 && point < total).sort((a, b) => a - b);
  const sizes: number[] = [];
  let at = 0;
  for (const point of [...points, total]) {
    for (; at + 65_536 < point; at += 65_536) sizes.push(65_536);
    if (point > at) sizes.push(point - at);
    at = point;
  }
  return sizes;
}

describe('UnaskedCount of bytes', () => {
  it(`lets through a server sending at most ${PER_CALL_BYTES} bytes a call in chunks cut anywhere, read at any speed; and stops whatever comes past the calls' allowance and ${UNASKED_BYTES_PER_SECOND} bytes, as it arrives`, () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ sent: fc.nat(PER_CALL_BYTES), readDuring: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: CALLS_HELD }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        fc.integer({ min: 1, max: 64 * 1024 * 1024 }),
        (calls, cuts, flood) => {
          const count = new UnaskedCount(0, () => 0, PER_CALL_BYTES);
          let refused = 0;
          let unread = 0;
          const read = (bytes: number, waiting: boolean): void => {
            for (const size of chunks(bytes, cuts)) if (!count.bytes(size, waiting)) refused += 1;
            unread -= bytes;
          };
          for (const call of calls) {
            count.called();
            unread += call.sent;
            read(Math.floor(unread * call.readDuring), true);
            read(unread, false);
          }
          expect(refused).toBe(0);
          // a flood after them: refused at the chunk that passes what is left of the calls' allowance and the bucket
          const spent = calls.reduce((sum, call) => sum + call.sent, 0);
          const allowed = calls.length * PER_CALL_BYTES - spent + UNASKED_BYTES_PER_SECOND;
          let through = 0;
          for (const size of chunks(flood, cuts)) {
            if (!count.bytes(size, false)) break;
            through += size;
          }
          expect(through).toBeLessThanOrEqual(allowed);
          if (flood > allowed) expect(through).toBeGreaterThan(allowed - 65_536);
          else expect(through).toBe(flood);
        },
      ),
      { numRuns: runs(60) },
    );
  });

  it(`refills its ${UNASKED_BYTES_PER_SECOND} bytes a second between calls, and stops a stdio server's huge line within it`, () => {
    let clock = 0;
    const count = new UnaskedCount(0, () => clock);
    for (let second = 0; second < 60; second += 1) {
      clock = second * 1000;
      expect(count.bytes(UNASKED_BYTES_PER_SECOND, false)).toBe(true);
    }
    // the bucket is spent within the second: a line of 5 MiB in 64 KiB chunks is stopped at its first chunk
    expect(count.bytes(65_536, false)).toBe(false);
    // while a request waits, its answer is not counted
    expect(count.bytes(64 * 1024 * 1024, true)).toBe(true);
  });
});
