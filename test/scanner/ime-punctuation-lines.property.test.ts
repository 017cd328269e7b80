import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { imePunctuation } from '../../src/scanner/ime-punctuation.js';
import { runs } from '../helpers/property-runs.js';

// Review Z21, Z21-4: the look-up of input-method punctuation found the line of each parser error by looking back from
// it for a line break: 400,000 errors on one long line cost ~25 s of CPU more than the same file without its '，'. The
// line breaks are now indexed once. This property holds the new look-up to the old one, kept below as it was
// (fefb0f5f, src/scanner/ime-punctuation.ts), on texts of the characters it reads and errors anywhere in or near them:
// the same slips at the same offsets with the same messages, explaining the same errors.

type ParserError = { code: string; message: string; pos: [number, number] };
interface Slip {
  offset: number;
  message: string;
  explains: (error: ParserError) => boolean;
}

// the characters the look-up reads (YAML's punctuation, the input method's, blanks, breaks) and some text
const text = fc.array(fc.constantFrom('\n', '\n', ' ', ' ', '\t', 'a', 'key', '统计', '-', ':', '[', ']', '{', '}', ',', '"', "'", '#', '，', '、', '：', '“', '”', '‘', '’', '\r'), { maxLength: 60 }).map((parts) => parts.join(''));
const CODES = ['BAD_INDENT', 'UNEXPECTED_TOKEN', 'MISSING_CHAR', 'BLOCK_AS_IMPLICIT_KEY'];
const MESSAGES = ['Flow sequence in block collection must be sufficiently indented and end with a ]', 'Flow mapping must end with a }', 'Unexpected scalar', 'Implicit keys need to be followed by map values'];
const error = (length: number): fc.Arbitrary<ParserError> =>
  fc.record({ code: fc.constantFrom(...CODES), message: fc.constantFrom(...MESSAGES), at: fc.integer({ min: -2, max: length + 2 }) }).map(({ code, message, at }) => ({ code, message, pos: [at, at + 1] as [number, number] }));
const texts = text.chain((written) => fc.record({ written: fc.constant(written), errors: fc.array(error(written.length), { maxLength: 30 }), probes: fc.array(error(written.length), { maxLength: 20 }) }));

describe('imePunctuation (property-based)', () => {
  it('tells the same slips as the look-up that searched back for each error\'s line, explaining the same errors', () => {
    fc.assert(
      fc.property(texts, ({ written, errors, probes }) => {
        const found = imePunctuation(written, errors);
        const expected = referenceImePunctuation(written, errors);
        expect(found.map(({ offset, message }) => ({ offset, message }))).toEqual(expected.map(({ offset, message }) => ({ offset, message })));
        for (const probe of [...errors, ...probes]) expect(found.map((slip) => slip.explains(probe))).toEqual(expected.map((slip) => slip.explains(probe)));
      }),
      { numRuns: runs(2000) },
    );
  });

  it('finds a slip on most texts it is given (the property above is not only of texts without one)', () => {
    let told = 0;
    fc.assert(
      fc.property(texts, ({ written, errors }) => {
        if (referenceImePunctuation(written, errors).length > 0) told++;
      }),
      { numRuns: runs(500) },
    );
    expect(told).toBeGreaterThan(runs(500) / 20);
  });
});

// the look-up as it was before review Z21-4, unchanged but for its name and types
const PUNCTUATION: Readonly<Record<string, { name: string; ascii: string }>> = {
  '\uFF0C': { name: 'full-width comma', ascii: ',' },
  '\u3001': { name: 'ideographic comma', ascii: ',' },
  '\uFF1A': { name: 'full-width colon', ascii: ':' },
  '\u201C': { name: 'curly quote', ascii: '"' },
  '\u201D': { name: 'curly quote', ascii: '"' },
  '\u2018': { name: 'curly quote', ascii: "'" },
  '\u2019': { name: 'curly quote', ascii: "'" },
};

// as many as a file's syntax errors are shown
const MAX_SLIPS = 10;

const ANY = /[\uFF0C\u3001\uFF1A\u201C\u201D\u2018\u2019]/;

/** One slip per line where a parser error starts that holds such a character where YAML's own punctuation belongs. */
function referenceImePunctuation(text: string, errors: ReadonlyArray<{ pos: [number, number] }>): Slip[] {
  if (!ANY.test(text)) return [];
  const slips: Slip[] = [];
  // each line looked at once: the line where an error starts (a file of thousands of errors costs no more than its lines)
  const seen = new Set<number>();
  for (const error of errors) {
    if (slips.length >= MAX_SLIPS) break;
    const start = lineStartOf(text, error.pos[0]);
    if (seen.has(start)) continue;
    seen.add(start);
    const end = text.indexOf('\n', start);
    const lineEnd = end < 0 ? text.length : end;
    const found = slipOnLine(text.slice(start, lineEnd));
    if (found) slips.push(told(text, start, lineEnd, found));
  }
  return slips.sort((a, b) => a.offset - b.offset);
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', Math.min(offset, text.length) - 1) + 1;
}

interface Found {
  at: number;
  char: string;
  inFlow: boolean;
  key: string;
}

function told(text: string, start: number, lineEnd: number, found: Found): Slip {
  const { name, ascii } = PUNCTUATION[found.char]!;
  const code = `U+${found.char.codePointAt(0)!.toString(16).toUpperCase()}`;
  const number = text.slice(0, start).split('\n').length;
  const what =
    ascii === ','
      ? `does not separate items in YAML, so the list on line ${number} cannot be read: type an ASCII ',' between items (or quote the item, if the '${found.char}' belongs to its text)`
      : ascii === ':'
        ? `does not end a key in YAML, so line ${number} is not read as '${found.key}: …': type an ASCII ':' and a space`
        : `does not quote in YAML, so what it opens is read as plain text: type ASCII quotes at both ends (${ascii}…${ascii})`;
  const typist = name === 'curly quote' ? 'an input method or a word processor types curly quotes' : 'a Chinese or Japanese input method types the full-width one';
  return {
    offset: start + found.at,
    message: `${name} '${found.char}' (${code}) ${what}; ${typist}`,
    // the errors of its line, and the unclosed list's at the end of the file that a slip inside [ … ] leaves
    explains: ({ code: errorCode, message, pos }) => (pos[0] >= start && pos[0] <= lineEnd) || (found.inFlow && pos[0] > lineEnd && errorCode === 'BAD_INDENT' && /^Flow (sequence|mapping)/.test(message)),
  };
}

// the first character of the line (outside ASCII quotes and comments) that stands where YAML's punctuation belongs
function slipOnLine(line: string): Found | undefined {
  if (!ANY.test(line)) return undefined;
  let depth = 0;
  let quote: string | undefined;
  let colon = false;
  let itemStart = 0;
  // the last character before `at` that is not a blank, and whether a blank follows it
  let last = '';
  let blank = true;
  for (let at = 0; at < line.length; at++) {
    const char = line[at]!;
    if (quote) {
      if (char === quote) quote = undefined;
      last = char;
      blank = false;
      continue;
    }
    if (/\s/.test(char)) {
      blank = true;
      continue;
    }
    // a value or an item can start here: first on the line, or after '- ', ': ', '[', '{', ',' (ASCII or full-width)
    const starts = last === '' || /[[{,]/.test(last) || (depth > 0 && /[\uFF0C\u3001]/.test(last)) || (blank && /[-:\uFF1A]/.test(last));
    if (char === '#' && blank) return undefined;
    if ((char === '"' || char === "'") && starts) quote = char;
    else if ((char === '[' || char === '{') && starts) {
      depth++;
      colon = false;
      itemStart = at + 1;
    } else if ((char === ']' || char === '}') && depth > 0) depth--;
    else if (char === ',' && depth > 0) {
      colon = false;
      itemStart = at + 1;
    } else if (char === ':' && /\s|$/.test(line[at + 1] ?? '')) colon = true;
    else if (char === '\uFF1A' && !colon) {
      const key = line.slice(itemStart, at).replace(/^\s*(?:-\s+)*/, '').trim();
      if (key !== '') return { at, char, inFlow: depth > 0, key: key.length > 40 ? `${key.slice(0, 40)}…` : key };
    } else if ((char === '\uFF0C' || char === '\u3001') && depth > 0) return { at, char, inFlow: true, key: '' };
    else if ((char === '\u201C' || char === '\u2018') && starts) return { at, char, inFlow: depth > 0, key: '' };
    last = char;
    blank = false;
  }
  return undefined;
}
