/**
 * Punctuation an input method for Chinese or Japanese types where YAML needs ASCII (review userZ10, U10-3): a
 * full-width `：` after a key, a `，` or `、` between the items of `[ … ]`, curly quotes “ ” ‘ ’ around a value. `yaml`
 * reads each as text and reports what follows (six errors for one comma, none naming it); told once per line instead,
 * at the character, with what to type.
 */

/** A slip told in our words at `offset`, and which of the parser's errors it explains. */
export interface ExplainedSlip {
  offset: number;
  message: string;
  explains: (error: { code: string; message: string; pos: [number, number] }) => boolean;
}

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
export function imePunctuation(text: string, errors: ReadonlyArray<{ pos: [number, number] }>): ExplainedSlip[] {
  if (!ANY.test(text)) return [];
  const lines = new LineBreaks(text);
  const slips: ExplainedSlip[] = [];
  // each line looked at once: the line where an error starts (a file of thousands of errors costs no more than its
  // lines), found among the text's line breaks indexed once: looked for back from each error, 400,000 errors on one
  // long line cost ~25 s of CPU (review Z21, Z21-4)
  const seen = new Set<number>();
  for (const error of errors) {
    if (slips.length >= MAX_SLIPS) break;
    const line = lines.lineOf(error.pos[0]);
    if (seen.has(line)) continue;
    seen.add(line);
    const start = lines.start(line);
    const lineEnd = lines.end(line);
    const found = slipOnLine(text.slice(start, lineEnd));
    if (found) slips.push(told(line + 1, start, lineEnd, found));
  }
  return slips.sort((a, b) => a.offset - b.offset);
}

/** The offsets of a text's line breaks, indexed once; lines are counted from 0. */
class LineBreaks {
  private readonly breaks: number[] = [];

  constructor(private readonly text: string) {
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) this.breaks.push(at);
  }

  /**
   * The line an error at `offset` is told on: the one holding the character before it (an error at a line's end is
   * its line's), as `lastIndexOf('\n', offset - 1)` found it before.
   */
  lineOf(offset: number): number {
    const before = Math.max(Math.min(offset, this.text.length) - 1, 0);
    // the number of breaks at or before `before`
    let low = 0;
    let high = this.breaks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.breaks[middle]! <= before) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  start(line: number): number {
    return line === 0 ? 0 : this.breaks[line - 1]! + 1;
  }

  end(line: number): number {
    return line < this.breaks.length ? this.breaks[line]! : this.text.length;
  }
}

interface Found {
  at: number;
  char: string;
  inFlow: boolean;
  key: string;
}

function told(number: number, start: number, lineEnd: number, found: Found): ExplainedSlip {
  const { name, ascii } = PUNCTUATION[found.char]!;
  const code = `U+${found.char.codePointAt(0)!.toString(16).toUpperCase()}`;
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
