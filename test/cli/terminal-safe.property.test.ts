import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/cli/terminal-safe.js';
import { hiddenCharacters } from '../../src/core/index.js';
import { runs } from '../helpers/property-runs.js';

// every character that can steer a terminal, reorder what it shows, or show nothing (and so hide text)
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u115f\u1160\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;
const unsafeCharacter = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }),
  fc.integer({ min: 0x7f, max: 0x9f }),
  fc.constantFrom(0x061c, 0x115f, 0x1160, 0x200b, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2061, 0x2064, 0x2066, 0x2067, 0x2068, 0x2069, 0x206a, 0x206f, 0x3164, 0xfeff, 0xffa0, 0xfff9, 0xfffb),
  fc.integer({ min: 0xe0000, max: 0xe007f }),
).map((code) => String.fromCodePoint(code));
// text mixing printable characters (any script) with the characters that steer a terminal
const hostileText = fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), unsafeCharacter)).map((parts) => parts.join(''));
// …and none of what `hldp validate` refuses in a definition (the soft hyphen, a run of variation selectors, …: review Z8, Z8-6)
const safeText = fc.string({ unit: 'grapheme' }).filter((text) => !UNSAFE.test(text) && hiddenCharacters(text).length === 0);

describe('terminalSafe', () => {
  it('leaves no character that steers a terminal, whatever the text', () => {
    fc.assert(fc.property(hostileText, (text) => {
      expect(terminalSafe(text)).not.toMatch(UNSAFE);
    }), { numRuns: runs(2000) });
  });

  it('changes nothing in a text that holds none', () => {
    fc.assert(fc.property(safeText, (text) => {
      expect(terminalSafe(text)).toBe(text);
    }), { numRuns: runs(2000) });
  });

  it('writes each one as its visible escape, in place', () => {
    fc.assert(
      fc.property(safeText, unsafeCharacter, safeText, (before, character, after) => {
        const code = character.codePointAt(0)!;
        const escape = code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
        expect(terminalSafe(`${before}${character}${after}`)).toBe(`${before}${escape}${after}`);
      }),
      { numRuns: runs(2000) },
    );
  });

  it.each([
    ['\u001b[2J\u001b]0;pwned\u0007', String.raw`\x1b[2J\x1b]0;pwned\x07`],
    ['line\nfake ok', String.raw`line\x0afake ok`],
    ['\u202eevil', String.raw`\u202eevil`],
    // a right-to-left mark reorders the neutral characters around it (Trojan Source, CVE-2021-42574)
    ['rm \u200f-rf /tmp/x', String.raw`rm \u200f-rf /tmp/x`],
    // a name that looks like another: git-ops and a zero-width space
    ['git-ops\u200b', String.raw`git-ops\u200b`],
    // "ignore" spelt in tag characters: invisible in a terminal, read by a model
    ['ok\u{e0069}\u{e0067}\u{e006e}', String.raw`ok\u{e0069}\u{e0067}\u{e006e}`],
    // a name that looks empty: a Hangul filler
    ['\u3164', String.raw`\u3164`],
    // the joiners scripts and emoji need stay as they are
    ['\u0645\u06cc\u200c\u062e\u0648\u0627\u0645 👩\u200d💻', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0645 👩\u200d💻'],
  ])('shows %j as %j', (text, shown) => {
    expect(terminalSafe(text)).toBe(shown);
  });
});
