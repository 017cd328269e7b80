import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/cli/terminal-safe.js';

// every character that can steer a terminal or reorder what it shows
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const unsafeCharacter = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }),
  fc.integer({ min: 0x7f, max: 0x9f }),
  fc.constantFrom(0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069),
).map((code) => String.fromCharCode(code));
// text mixing printable characters (any script) with the characters that steer a terminal
const hostileText = fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), unsafeCharacter)).map((parts) => parts.join(''));
const safeText = fc.string({ unit: 'grapheme' }).filter((text) => !UNSAFE.test(text));

describe('terminalSafe', () => {
  it('leaves no character that steers a terminal, whatever the text', () => {
    fc.assert(fc.property(hostileText, (text) => {
      expect(terminalSafe(text)).not.toMatch(UNSAFE);
    }), { numRuns: 2000 });
  });

  it('changes nothing in a text that holds none', () => {
    fc.assert(fc.property(safeText, (text) => {
      expect(terminalSafe(text)).toBe(text);
    }), { numRuns: 2000 });
  });

  it('writes each one as its visible escape, in place', () => {
    fc.assert(
      fc.property(safeText, unsafeCharacter, safeText, (before, character, after) => {
        const code = character.charCodeAt(0);
        const escape = code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
        expect(terminalSafe(`${before}${character}${after}`)).toBe(`${before}${escape}${after}`);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['\u001b[2J\u001b]0;pwned\u0007', String.raw`\x1b[2J\x1b]0;pwned\x07`],
    ['line\nfake ok', String.raw`line\x0afake ok`],
    ['\u202eevil', String.raw`\u202eevil`],
  ])('shows %j as %j', (text, shown) => {
    expect(terminalSafe(text)).toBe(shown);
  });
});
