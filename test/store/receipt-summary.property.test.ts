import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerptOf } from '../../src/store/receipt-summary.js';
import { runs } from '../helpers/property-runs.js';

// A receipt's view shows it as the store cuts each string for display: read from text an agent's tool wrote.

/** any string, lone surrogates, escapes (quotes, backslashes, controls) and blank lines among its characters */
const text = fc.string({ unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('"', '\\', '\n', '\u0000', '\u001b', 'u', '0')), maxLength: 60 });

/** Each string of `cut` beside the one of `whole` at the same place: the cut's is whole, or its start and at least `chars - 1` long. */
function expectCut(whole: unknown, cut: unknown, chars: number): void {
  if (typeof whole === 'string') {
    expect(typeof cut).toBe('string');
    const shown = cut as string;
    if (whole.length <= chars) expect(shown).toBe(whole);
    else {
      expect(whole.startsWith(shown)).toBe(true);
      expect(shown.length).toBeGreaterThanOrEqual(chars - 1);
      expect(shown.length).toBeLessThanOrEqual(chars);
      // never half of a surrogate pair at the end
      const last = shown.charCodeAt(shown.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff && whole.charCodeAt(shown.length) >= 0xdc00 && whole.charCodeAt(shown.length) <= 0xdfff).toBe(false);
    }
  } else if (whole !== null && typeof whole === 'object') {
    expect(Object.keys(cut as object)).toEqual(Object.keys(whole));
    for (const key of Object.keys(whole)) expectCut((whole as Record<string, unknown>)[key], (cut as Record<string, unknown>)[key], chars);
  } else expect(cut).toEqual(whole);
}

const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value !== null && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

describe('a receipt cut for display', () => {
  it('keeps every string that fits and the start of each that does not, and says so when it cut one', () => {
    const receipt = fc.record({ id: fc.string(), output: text, error: fc.option(text), params: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) });
    fc.assert(
      fc.property(receipt, fc.integer({ min: 1, max: 40 }), (whole, chars) => {
        const stored = JSON.parse(JSON.stringify(whole)) as Record<string, unknown>;
        const { receipt: shown, cut } = excerptOf(JSON.stringify(stored), chars);
        expectCut(stored, shown, chars);
        expect(Object.keys(cut).length > 0).toBe(strings(stored).some((value) => value.length > chars));
        if (typeof stored.output === 'string' && stored.output.length > chars) expect(cut.output).toBe(Buffer.byteLength(stored.output));
      }),
      { numRuns: runs(1000) },
    );
  });
});
