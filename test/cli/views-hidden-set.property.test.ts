import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/cli/terminal-safe.js';
import { revealed, revealHiddenCharacters } from '../../src/console/html.js';
import { hiddenCharacters, revealHidden } from '../../src/core/index.js';
import { runs } from '../helpers/property-runs.js';

// Review Z8, Z8-6: `hldp receipts`, `hldp tail`, `hldp approvals show` and the console escaped a narrower set of
// characters than `hldp validate` refuses in a definition: a run of variation selectors (which carries bytes no one
// sees), U+00AD, U+034F, U+180E, Khmer's inherent vowels, the musical format characters, … reached them as nothing. The
// views now escape exactly the validator's set (core's `hiddenCharacters`), and every control.

// what the validator refuses that the views' old list let through, and some of what both had
const refused = fc.oneof(
  fc.constantFrom(0x00ad, 0x034f, 0x180e, 0x17b4, 0x17b5, 0x1d173, 0x1d17a, 0x1bca0, 0x1bca3, 0x13430, 0x13438, 0x0600, 0x06dd, 0xfff0, 0x200b, 0x2061, 0x202e, 0xe0041),
  fc.integer({ min: 0xe0080, max: 0xe0fff }),
).map((code) => String.fromCodePoint(code));
// a run of variation selectors: one picks a glyph's form; two or more carry bytes
const selectorRun = fc.array(fc.oneof(fc.integer({ min: 0xfe00, max: 0xfe0f }), fc.integer({ min: 0xe0100, max: 0xe01ef })), { minLength: 2, maxLength: 8 }).map((codes) => String.fromCodePoint(...codes));
// visible text of several scripts, with the joiners and single selectors text and emoji need
const visible = fc.constantFrom('ok', 'done | ', 'Grüße', 'مرحبا', 'नमस्ते', '日本', '👩\u200d💻', '❤\ufe0f', '\u0645\u06cc\u200c\u062e', ' ', 'x\\u00ad');
const text = fc.array(fc.oneof({ weight: 4, arbitrary: visible }, { weight: 2, arbitrary: refused }, { weight: 1, arbitrary: selectorRun }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) }), { maxLength: 24 })
  .map((parts) => parts.join(''))
  // the carriage return of a CRLF line end: a definition may hold it, the views always escape it
  .filter((value) => !value.includes('\r'));
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// a joiner or a single variation selector is kept where it joins or picks a form in the text given; the escape written
// beside it (of a hidden mark it sat on) is ASCII, so a look at the output alone may find it: only those are allowed
const contextual = (code: number): boolean => code === 0x200c || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef) || (code >= 0x180b && code <= 0x180f);
const leftHidden = (shown: string): number[] => hiddenCharacters(shown).map((found) => found.codePoint).filter((code) => !contextual(code));
const unmarked = (markup: string): string => markup.replace(/<span class="hidden-character" title="[^"]*">([^<]*)<\/span>/g, '$1');

describe('the views escape what hldp validate refuses in a definition, and only that', () => {
  it('terminalSafe (hldp receipts, tail, approvals): nothing the validator refuses and no control is left', () => {
    fc.assert(fc.property(text, (value) => {
      const shown = terminalSafe(value);
      expect(leftHidden(shown)).toEqual([]);
      expect(shown).not.toMatch(CONTROL);
      // a text the validator accepts (tab and line feed aside) is shown as it is
      expect(shown === value).toBe(hiddenCharacters(value).length === 0 && !/[\t\n]/.test(value));
    }), { numRuns: runs(1000) });
  });

  it('revealHidden (plain-text prompts): the same set, tab and line feed kept', () => {
    fc.assert(fc.property(text, (value) => {
      const shown = revealHidden(value);
      expect(leftHidden(shown)).toEqual([]);
      expect(shown === value).toBe(hiddenCharacters(value).length === 0);
    }), { numRuns: runs(1000) });
  });

  it("the console's revealed text and whole pages: each refused character marked, nothing else", () => {
    fc.assert(fc.property(text, (value) => {
      const shown = revealed(value).text;
      expect(leftHidden(unmarked(shown).replace(/<[^>]*>/g, ''))).toEqual([]);
      expect(shown.includes('hidden-character')).toBe(hiddenCharacters(value).length > 0);
      const page = revealHiddenCharacters(`<p>${revealed(value).text}</p><pre>${value.replace(/[<>&]/g, '')}</pre>`);
      expect(leftHidden(unmarked(page).replace(/<[^>]*>/g, ''))).toEqual([]);
    }), { numRuns: runs(500) });
  });

  it.each([
    ['ok \u{e0101}\u{e0102}\u00ad\u180e done', String.raw`ok \u{e0101}\u{e0102}\xad\u180e done`],
    ['a\u034fb\u17b4c\u{1d173}', String.raw`a\u034fb\u17b4c\u{1d173}`],
    ['❤\ufe0f 👩\u200d💻', '❤\ufe0f 👩\u200d💻'],
    ['A\ufe0f', String.raw`A\ufe0f`],
  ])('terminalSafe shows %j as %j', (value, shown) => {
    expect(terminalSafe(value)).toBe(shown);
  });
});
