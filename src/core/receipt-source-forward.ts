import type { Span, TextReader } from './receipt-source.js';

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN = new Set([0x7b, 0x5b]);
export const CLOSE = new Set([0x7d, 0x5d]);

/**
 * Where the value of the text's top-level `source` member is, found from the front (the walk of 5566b15): the canonical
 * text leads with `ok, tool, method, output, error, duration_ms`, whose values are strings, booleans, numbers or null;
 * a string cannot hold an unescaped `"`, so the first `,"duration_ms":` is the top-level one (found by the engine's
 * search, however long the output), and from there each member up to `source` is stepped over whole (the params among
 * them, bounded by a request's size). Taken where the walk from the end would cross a long `stderr` or
 * `structured_content` a character at a time (review Z12, finding 3). Undefined when the text has no such member.
 */
export function forwardSourceSpan(reader: TextReader): Span | undefined {
  const duration = reader.indexOf(',"duration_ms":', 0);
  if (duration < 0) return undefined;
  let at = duration + 1;
  for (;;) {
    if (reader.at(at) !== QUOTE) throw new SyntaxError('a member name was expected');
    const nameEnd = stringEnd(reader, at);
    const name = reader.slice(at + 1, nameEnd - 1);
    if (reader.at(nameEnd) !== COLON) throw new SyntaxError('a colon was expected');
    const valueEnd = valueEndOf(reader, nameEnd + 1);
    if (name === 'source') return reader.at(nameEnd + 1) === 0x7b ? { start: nameEnd + 1, end: valueEnd } : undefined;
    if (reader.at(valueEnd) !== COMMA) return undefined;
    at = valueEnd + 1;
  }
}

// the index just past the string that opens at `start` (a `"`): the next `"` not escaped by an odd run of backslashes
function stringEnd(reader: TextReader, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = reader.indexOf('"', from);
    if (quote < 0) throw new SyntaxError('a string does not end');
    let backslashes = 0;
    while (reader.at(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

// the index just past the JSON value that starts at `start`
function valueEndOf(reader: TextReader, start: number): number {
  const first = reader.at(start);
  if (first === QUOTE) return stringEnd(reader, start);
  if (!OPEN.has(first)) {
    // a number, true, false or null: up to the next comma or closing bracket
    let end = start;
    while (end < reader.length && reader.at(end) !== COMMA && !CLOSE.has(reader.at(end))) end += 1;
    return end;
  }
  let depth = 0;
  let at = start;
  while (at < reader.length) {
    const code = reader.at(at);
    if (code === QUOTE) {
      at = stringEnd(reader, at);
      continue;
    }
    if (OPEN.has(code)) depth += 1;
    else if (CLOSE.has(code) && --depth === 0) return at + 1;
    at += 1;
  }
  throw new SyntaxError('an object or array does not end');
}
