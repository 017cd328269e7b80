import { describe, expect, it } from 'vitest';
import { UNASKED_PER_SECOND, UnaskedCount } from '../../src/mcp-servers/unasked-count.js';

// The allowance of unasked messages (review Z19): with the clock given, the rule itself, in the time a server keeps to.
/** Sends `bursts` as [ms, messages] in order; the number of messages sent until the first refused, or undefined. */
function stoppedAfter(capacity: number, bursts: Array<[number, number]>): number | undefined {
  let clock = 0;
  const count = new UnaskedCount(capacity, () => clock);
  let sent = 0;
  for (const [at, messages] of bursts) {
    clock = at;
    for (let index = 0; index < messages; index += 1) {
      sent += 1;
      if (!count.allows()) return sent;
    }
  }
  return undefined;
}

const every = (ms: number, messages: number, times: number): Array<[number, number]> => Array.from({ length: times }, (_, index) => [index * ms, messages]);

describe('UnaskedCount', () => {
  it('stops a server bursting with a quiet second between the bursts (Z19-4: never stopped by "3 s running past the count")', () => {
    expect(stoppedAfter(20_000, every(2100, 100_000, 20))).toBe(20_001);
    // two seconds on, one off
    const twoOnOneOff = Array.from({ length: 20 }, (_, index): [number, number] => [Math.floor(index / 2) * 3000 + (index % 2) * 1000, 20_000]);
    expect(stoppedAfter(20_000, twoOnOneOff)).toBeDefined();
  });

  it('lets a batch\'s tail through once, and a server at the rate for good', () => {
    // 20,000 at once, then a second's worth each second for ten minutes
    expect(stoppedAfter(20_000, [[0, 20_000], ...every(1000, UNASKED_PER_SECOND, 600).map(([ms, n]): [number, number] => [ms + 1000, n])])).toBeUndefined();
    // one second's allowance (stdio): a second's worth each second, but not one more at once
    expect(stoppedAfter(UNASKED_PER_SECOND, every(1000, UNASKED_PER_SECOND, 600))).toBeUndefined();
    expect(stoppedAfter(UNASKED_PER_SECOND, [[0, UNASKED_PER_SECOND + 1]])).toBe(UNASKED_PER_SECOND + 1);
  });

  it('stops a steady flood past the rate after capacity / (rate - UNASKED_PER_SECOND) seconds', () => {
    // 2,000 a second, 2 ms apart each 1: the allowance of 20,000 falls by 1,000 a second
    const steady = Array.from({ length: 60_000 }, (_, index): [number, number] => [index / 2, 1]);
    const sent = stoppedAfter(20_000, steady)!;
    expect(sent / 2000).toBeGreaterThan(19);
    expect(sent / 2000).toBeLessThan(21);
  });
});
