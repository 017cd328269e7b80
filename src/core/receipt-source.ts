import { markNotStored, wasNotStored, type Receipt, type ReceiptSource } from './receipt.js';

/** What a receipt's `source.withheld` says to one who is no admin, its repository a remote URL (kept, credentials removed). */
export const SOURCE_WITHHELD = 'the host and URL of the gateway that made it: an administrator can see them';

/** The same, its repository a folder on that host: only the folder's name is kept. */
export const SOURCE_PATH_WITHHELD = "the host and URL of the gateway that made it, and where its repository is on that host (the folder's name is kept): an administrator can see them";

/**
 * A receipt's `source` as one who is no admin reads it (review Z7, Z7-1): the repository by its remote URL without
 * credentials, query or fragment, or by its folder's name; not the host name, the instance's URL or the registry's path
 * on that host, which say where and how the operator runs gateways (as a request's `filed_by` and `run.by`, an admin's
 * to read: `approvalSeenBy`). `withheld` says what is left out, and who can read it.
 */
export function sourceSeen(source: ReceiptSource): ReceiptSource {
  const remote = /^https?:\/\//i.test(source.repository);
  return remote ? { repository: remoteName(source.repository), withheld: SOURCE_WITHHELD } : { repository: folderName(source.repository), withheld: SOURCE_PATH_WITHHELD };
}

/** A receipt as one reads it: whole to an admin (`whole`), else with its `source` as `sourceSeen` gives it. The stored receipt is not changed. */
export function receiptSeen(receipt: Receipt, whole: boolean): Receipt {
  if (whole || !receipt.source || receipt.source.withheld !== undefined) return receipt;
  const seen = { ...receipt, source: sourceSeen(receipt.source) };
  if (wasNotStored(receipt)) markNotStored(seen);
  return seen;
}

/**
 * A stored receipt's canonical text as one reads it: `text` itself to an admin (`whole`), else the same text with its
 * top-level `source` as `sourceSeen` gives it — found without parsing the rest (a receipt may hold 96 MB of output,
 * which is sent as stored, in slices), its bytes left as they are: only the small `source` member is replaced.
 */
export function receiptTextSeen(text: string, whole: boolean): string;
export function receiptTextSeen(text: string | Uint8Array, whole: boolean): string | Uint8Array;
export function receiptTextSeen(text: string | Uint8Array, whole: boolean): string | Uint8Array {
  if (whole) return text;
  const reader = typeof text === 'string' ? stringReader(text) : bytesReader(text);
  // a receipt kept before receipts named their source has none: nothing to withhold
  if (reader.indexOf('"source":', 0) < 0) return text;
  let span: Span | undefined;
  try {
    span = sourceSpan(reader);
  } catch {
    span = undefined;
  }
  // not where the canonical text has it (a text this code did not write): parsed whole, never sent unread
  if (span === undefined) return JSON.stringify(receiptSeen(JSON.parse(reader.slice(0, reader.length)) as Receipt, false));
  const source = JSON.parse(reader.slice(span.start, span.end)) as ReceiptSource;
  const seen = JSON.stringify(sortedSource(sourceSeen(source)));
  if (typeof text === 'string') return `${text.slice(0, span.start)}${seen}${text.slice(span.end)}`;
  return Buffer.concat([text.subarray(0, span.start), Buffer.from(seen, 'utf8'), text.subarray(span.end)]);
}

// a remote repository's URL as a caller may read it: no user, password, query or fragment
function remoteName(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return '(a remote repository)';
  }
}

// a folder's last name: `/srv/registries/native-repo/` reads `native-repo`
function folderName(path: string): string {
  const parts = path.split(/[\\/]+/).filter((part) => part !== '');
  return parts.at(-1) ?? '(a folder)';
}

// the canonical text's key order (keys sorted), so that an admin's and anyone else's texts differ only in what is withheld
function sortedSource(source: ReceiptSource): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(source).sort()) sorted[key] = (source as unknown as Record<string, string>)[key]!;
  return sorted;
}

interface Span {
  start: number;
  end: number;
}

/** A JSON text read by code unit (a string) or by byte (UTF-8): every character the walk looks at is ASCII, so both read alike. */
interface TextReader {
  length: number;
  at(index: number): number;
  indexOf(needle: string, from: number): number;
  slice(start: number, end: number): string;
}

function stringReader(text: string): TextReader {
  return { length: text.length, at: (index) => text.charCodeAt(index), indexOf: (needle, from) => text.indexOf(needle, from), slice: (start, end) => text.slice(start, end) };
}

function bytesReader(bytes: Uint8Array): TextReader {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { length: buffer.length, at: (index) => buffer[index]!, indexOf: (needle, from) => buffer.indexOf(needle, from, 'latin1'), slice: (start, end) => buffer.toString('utf8', start, end) };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);

/**
 * Where the value of the text's top-level `source` member is, or undefined when it has none. The canonical text
 * (`canonicalReceiptText`) leads with `ok, tool, method, output, error, duration_ms`, whose values are strings,
 * booleans, numbers or null: a string cannot hold an unescaped `"`, so the first `,"duration_ms":` is the top-level
 * one, wherever the output's own text says so. From there each top-level member is skipped whole (a string to its
 * closing quote, an object or array to its matching bracket, strings inside skipped as strings), so a `"source"` an
 * agent wrote into its params, or a server into its structured content, is never taken for the receipt's.
 */
function sourceSpan(reader: TextReader): Span | undefined {
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
    const next = reader.at(valueEnd);
    if (next !== COMMA) return undefined;
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
