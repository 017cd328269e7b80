import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hiddenCharacters } from '../../src/core/index.js';
import { runs } from '../helpers/property-runs.js';

// hiddenCharacters skips its Unicode classes for a text made only of characters it knows to be visible (most
// definitions, at every cold scan): that quick look must never miss what the full one finds. A C1 control (NEL)
// appended forces the full look, and is itself found last; everything before it must be found alike.
const VISIBLE = ['a', ' ', '\t', '\n', 'é', 'ж', 'Ω', '—', '“', '→', '、', 'ア', '查', '한', '，'];
const HIDDEN = ['\u034f', '\u17b4', '\u180b', '\u{e0100}', '\u{e0080}', '❤', '葛', 'ᠠ', '\r', '\u00ad', '\u200b', '\u200c', '\u200d', '\u202e', '\u2066', '\u2028', '\ufeff', '\ufe0f', '\u3164', '\u0000', '\u001b', '\u{e0041}', '\u{1f469}', '\u0627', '\ud800'];

describe('hiddenCharacters', () => {
  it('finds in a text exactly what the full look finds', () => {
    const text = fc.array(fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...VISIBLE) }, { weight: 1, arbitrary: fc.constantFrom(...HIDDEN) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) }), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(fc.property(text, (value) => {
      const full = hiddenCharacters(`${value}\u0085`);
      expect(full.at(-1)).toEqual({ index: value.length, codePoint: 0x85 });
      expect(hiddenCharacters(value)).toEqual(full.slice(0, -1));
    }), { numRuns: runs(2000) });
  });
});
