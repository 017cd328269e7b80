import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutMarker } from '../../src/executors/bounded-output.js';
import { cutErrorMessage } from '../../src/executors/cut-error-message.js';
import { JsonStringCutter } from '../../src/executors/json-string-cutter.js';
import { runs } from '../helpers/property-runs.js';

const MARKERS = /\n\[… \d+ bytes cut of \d+ …\]\n/g;

// A server's error message is its own text (hostile, and it may hold marker-like lines): whatever it holds, the
// receipt's error stays within the cap, carries at most one marker of ours more than the server wrote, and counts
// what was left out.
describe('an MCP error message cut to the tool\'s cap', () => {
  it('stays within the cap, and a string the cutter cut is counted once, whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'binary', minLength: 1300, maxLength: 4000, size: 'max' })), fc.integer({ min: 64, max: 600 }), (prefix, body, cap) => {
        const cutter = new JsonStringCutter(cap, 2 * cap);
        const wire = Buffer.from(JSON.stringify({ message: body }));
        const decoded = JSON.parse(Buffer.concat([cutter.push(wire.subarray(0, 7)), cutter.push(wire.subarray(7))]).toString()) as { message: string };
        const message = `${prefix}${decoded.message}`;
        const result = cutErrorMessage('MCP_ERROR', message, cap, cutter.cuts, 0);
        expect(Buffer.byteLength(result.error!)).toBeLessThanOrEqual(cap);
        const whole = Buffer.byteLength(prefix) + Buffer.byteLength(body);
        if (cutter.cuts.cutBytes > 0 && [...message.matchAll(MARKERS)].length === 1) {
          // one marker, counting the whole message
          expect([...result.error!.matchAll(MARKERS)].length).toBe(1);
          expect(result.output_bytes).toBe(whole);
          expect(result.cut_bytes).toBe(whole - (Buffer.byteLength(result.error!) - Buffer.byteLength(cutMarker(result.cut_bytes, whole))));
        }
        expect(result.cut_bytes).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: runs(300) },
    );
  });
});
