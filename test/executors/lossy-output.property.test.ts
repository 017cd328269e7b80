// Review N, N6: a rendered output says when its bytes were not UTF-8 (`lossy`), and only then — also where the cap cut
// it, since the cut falls on character boundaries.
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { BoundedOutput } from '../../src/executors/bounded-output.js';

function rendered(chunks: Uint8Array[], capacity: number): ReturnType<BoundedOutput['render']> {
  const output = new BoundedOutput(capacity);
  for (const chunk of chunks) output.push(Buffer.from(chunk));
  return output.render();
}

describe('BoundedOutput.render', () => {
  it('never flags text that was UTF-8, however it arrived and was cut', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 20 }), fc.integer({ min: 1, max: 200 }), (texts, capacity) => {
        const whole = Buffer.from(texts.join(''));
        // chunks cut anywhere, even inside a character
        const chunks = [whole.subarray(0, whole.length >> 1), whole.subarray(whole.length >> 1)];
        expect(rendered(chunks, capacity + 60).lossy).toBeUndefined();
      }),
    );
  });

  it('flags bytes that are not UTF-8 when nothing was cut, and its text then holds U+FFFD', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const result = rendered([bytes], 1000);
        expect(result.lossy === true).toBe(!isUtf8(bytes));
        if (result.lossy) expect(result.text).toContain('\uFFFD');
      }),
    );
  });
});
