import { BACKSLASH, CLOSE, COLON, COMMA, forwardSourceSpan, OPEN, QUOTE } from './receipt-source-forward.js';
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

/**
 * The registry's source as one who is no admin reads it: as a receipt's `source` is read (`sourceSeen`: a remote by its
 * URL without credentials, query or fragment, a folder by its name; review Z9, Z9-5), with a note of the registry's own
 * on what is left out (the console's Registry page, /healthz's `source_withheld`). The receipts' note says "the host
 * and URL of the gateway that made it", which there read as if the registry were a receipt (review userZ9, U9-10).
 */
export function registrySourceSeen(source: string): { repository: string; withheld: string } {
  const seen = sourceSeen({ repository: source });
  const withheld = seen.withheld === SOURCE_WITHHELD
    ? "any credentials, query or fragment in the registry's URL: an administrator can see it whole"
    : "where the registry's folder is on the gateway's host (its name is kept): an administrator can see it";
  return { repository: seen.repository, withheld };
}

/** A receipt as one reads it: whole to an admin (`whole`), else with its `source` as `sourceSeen` gives it. The stored receipt is not changed. */
export function receiptSeen(receipt: Receipt, whole: boolean): Receipt {
  if (whole || !receipt.source || receipt.source.withheld !== undefined) return receipt;
  const seen = { ...receipt, source: sourceSeen(receipt.source) };
  if (wasNotStored(receipt)) markNotStored(seen);
  return seen;
}

/** A JSON text in pieces, which joined are the text: sent one after another, never joined into a second whole text. */
export type TextPieces = Array<string | Uint8Array>;

/**
 * A stored receipt's canonical text as one reads it, in pieces: `[text]` to an admin (`whole`), else the text before
 * its top-level `source`, that `source` as `sourceSeen` gives it, and the text after, the first and last slices of the
 * stored text (no copy of it) — found from the end of the text, over the few members that follow `source` in the
 * canonical order, never over the output before it (a receipt may hold 96 MB of output, which is sent as stored, in
 * slices): scanned and copied whole on the event loop, each read by one who is no admin held it 66-89 ms (review Z9, Z9-6).
 */
export function receiptPiecesSeen(text: string | Uint8Array, whole: boolean): TextPieces {
  if (whole) return [text];
  const reader = typeof text === 'string' ? stringReader(text) : bytesReader(text);
  // not as the canonical text has it (a text this code did not write), or a source not found by either walk: parsed
  // whole, never sent unread; a receipt with nothing to withhold is sent as stored, since JSON.stringify would move its
  // members named by numbers ("0") ahead of the others (their canonical place)
  const parsedWhole = (): TextPieces => {
    const stored = JSON.parse(reader.slice(0, reader.length)) as Receipt;
    const seen = receiptSeen(stored, false);
    return seen === stored ? [text] : [JSON.stringify(seen)];
  };
  let span: Span | undefined;
  try {
    span = sourceSpan(budgeted(reader, BACKWARD_BUDGET));
  } catch (error) {
    if (!(error instanceof OverBudget)) return parsedWhole();
    // a long stderr or structured_content after `source`: found from the front instead (review Z12, finding 3)
    try {
      span = forwardSourceSpan(reader);
    } catch {
      return parsedWhole();
    }
    if (span === undefined && reader.indexOf('"source":', 0) >= 0) return parsedWhole();
  }
  // a receipt kept before receipts named their source has none: nothing to withhold
  if (span === undefined) return [text];
  const source = JSON.parse(reader.slice(span.start, span.end)) as ReceiptSource;
  const seen = JSON.stringify(sortedSource(sourceSeen(source)));
  if (typeof text === 'string') return [text.slice(0, span.start), seen, text.slice(span.end)];
  return [text.subarray(0, span.start), Buffer.from(seen, 'utf8'), text.subarray(span.end)];
}

/** `receiptPiecesSeen` joined: the text as one reads it, whole. */
export function receiptTextSeen(text: string, whole: boolean): string;
export function receiptTextSeen(text: string | Uint8Array, whole: boolean): string | Uint8Array;
export function receiptTextSeen(text: string | Uint8Array, whole: boolean): string | Uint8Array {
  const pieces = receiptPiecesSeen(text, whole);
  if (pieces.length === 1) return pieces[0]!;
  return typeof text === 'string' ? pieces.join('') : Buffer.concat(pieces as Uint8Array[]);
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

export interface Span {
  start: number;
  end: number;
}

/** A JSON text read by code unit (a string) or by byte (UTF-8): every character the walk looks at is ASCII, so both read alike. */
export interface TextReader {
  length: number;
  at(index: number): number;
  indexOf(needle: string, from: number): number;
  /** the last `needle` at or before `from`; -1 when none (also when `from` < 0, which the built-ins would read from the end) */
  lastIndexOf(needle: string, from: number): number;
  slice(start: number, end: number): string;
}

function stringReader(text: string): TextReader {
  return { length: text.length, at: (index) => text.charCodeAt(index), indexOf: (needle, from) => text.indexOf(needle, from), lastIndexOf: (needle, from) => (from < 0 ? -1 : text.lastIndexOf(needle, from)), slice: (start, end) => text.slice(start, end) };
}

/**
 * Characters the walk from the end may look at one by one (each costs a call on the event loop: a 16 MB
 * structured_content or a stderr full of quotes held it 0.5-2 s, review Z12, finding 3) before the walk from the front
 * is taken; what the engine's own searches step over counts too, so a long stderr is not crossed twice.
 */
const BACKWARD_BUDGET = 1 << 18;

class OverBudget extends Error {}

function budgeted(reader: TextReader, budget: number): TextReader {
  let left = budget;
  const spend = (count: number): void => {
    left -= count;
    if (left < 0) throw new OverBudget('the walk from the end passed its budget');
  };
  return {
    length: reader.length,
    at: (index) => (spend(1), reader.at(index)),
    indexOf: (needle, from) => reader.indexOf(needle, from),
    lastIndexOf: (needle, from) => {
      const found = reader.lastIndexOf(needle, from);
      spend(from - found);
      return found;
    },
    slice: (start, end) => (spend(end - start), reader.slice(start, end)),
  };
}

function bytesReader(bytes: Uint8Array): TextReader {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { length: buffer.length, at: (index) => buffer[index]!, indexOf: (needle, from) => buffer.indexOf(needle, from, 'latin1'), lastIndexOf: (needle, from) => (from < 0 ? -1 : buffer.lastIndexOf(needle, from, 'latin1')), slice: (start, end) => buffer.toString('utf8', start, end) };
}


const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
// the spec's six, which lead the canonical text; every other member follows them in code-unit order of its name
const LEADING = new Set(['ok', 'tool', 'method', 'output', 'error', 'duration_ms']);

/**
 * Where the value of the text's top-level `source` member is, or undefined when it has none; throws when the text is
 * not as `canonicalReceiptText` writes it. The canonical text ends with the members after the leading six in order of
 * their names, `source` among them: from the text's last `}` each top-level member is stepped over backwards (a string
 * back to its opening quote, the one `"` inside it not escaped by an odd run of backslashes; an object or array back to
 * its matching bracket, strings inside stepped over as strings) until `source`, a name before it or a leading one. Only
 * what follows `source` (`started_at`, `stderr`, `structured_content`, `timed_out`, …) is read, never the output or the
 * params, so a `"source"` an agent wrote into its params, or a server into its structured content, is never taken for
 * the receipt's.
 */
function sourceSpan(reader: TextReader): Span | undefined {
  let end = reader.length - 1;
  if (reader.at(end) !== CLOSE_BRACE) throw new SyntaxError('the text does not end with }');
  let after: string | undefined;
  for (;;) {
    const start = valueStartBefore(reader, end);
    if (reader.at(start - 1) !== COLON) throw new SyntaxError('a colon was expected');
    const nameStart = stringStartBefore(reader, start - 2);
    const name = JSON.parse(reader.slice(nameStart, start - 1)) as string;
    if (after !== undefined && !(name < after)) throw new SyntaxError('the members are not in the canonical order');
    if (name === 'source') {
      if (reader.at(start) !== OPEN_BRACE) throw new SyntaxError('source is not an object');
      return { start, end };
    }
    if (name < 'source' || LEADING.has(name)) return undefined;
    if (reader.at(nameStart - 1) !== COMMA) throw new SyntaxError('a comma was expected');
    after = name;
    end = nameStart - 1;
  }
}

// the index of the opening quote of the string whose closing quote is at `close`: a `"` inside a string is escaped,
// an odd run of backslashes before it; the opening one follows `:`, `,`, `[` or `{`, no backslash
function stringStartBefore(reader: TextReader, close: number): number {
  if (reader.at(close) !== QUOTE) throw new SyntaxError('a string was expected');
  let from = close - 1;
  for (;;) {
    const quote = reader.lastIndexOf('"', from);
    if (quote < 0) throw new SyntaxError('a string does not start');
    let backslashes = 0;
    while (reader.at(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote - 1;
  }
}

// the index where the JSON value that ends just before `end` starts
function valueStartBefore(reader: TextReader, end: number): number {
  const last = reader.at(end - 1);
  if (last === QUOTE) return stringStartBefore(reader, end - 1);
  if (!CLOSE.has(last)) {
    // a number, true, false or null: back to the colon, comma or bracket before it
    let start = end - 1;
    while (start > 0 && reader.at(start - 1) !== COLON && reader.at(start - 1) !== COMMA && !OPEN.has(reader.at(start - 1))) start -= 1;
    return start;
  }
  let depth = 0;
  for (let at = end - 1; at >= 0; at -= 1) {
    const code = reader.at(at);
    if (code === QUOTE) {
      at = stringStartBefore(reader, at);
      continue;
    }
    if (CLOSE.has(code)) depth += 1;
    else if (OPEN.has(code) && --depth === 0) return at;
  }
  throw new SyntaxError('an object or array does not start');
}
