import { endianness } from 'node:os';
import { deserialize, serialize } from 'node:v8';
import { arrayOf, isStreamed, WIDTHS, widthOfSource, type ArraySource, type NarrowArray, type Width } from './narrow-array.js';
import { FIELD_COUNT, type StoredPostings } from './postings.js';
import type { SearchIndexToWrite, StoredSearchIndex } from './stored-search-index.js';
import type { Calibration } from './calibration.js';
import type { RecordFile, RecordsPlace } from './record-file.js';
import type { KeptLists, ListsPlace } from './kept-lists.js';

// The search index file, layout 7 (1 held minisearch's JSON, 2 one `v8.serialize` of everything, 3 every array of
// 32-bit numbers, 4 nothing measured over the tools, 5 not what the calibration read of each tool, 6 the names as an
// array of strings):
//   bytes 0-7    MAGIC
//   bytes 8-11   the layout (uint32, little-endian)
//   bytes 12-15  the header's length H (uint32, little-endian)
//   bytes 16-    the header: `v8.serialize` of the strings (version, byte order, the names as one string, each followed
//                by a line feed, and the terms), each array's length and
//                the bytes of each of its numbers (1, 2 or 4, as ARRAY_WIDTHS allows: unsigned, or 4 signed), and what
//                the matcher measured over the tools beside the index (`Measured`)
//   then, each at a multiple of 8 bytes from the file's start, the typed arrays in ARRAYS' order, in the byte order the
//   header names, and nothing after the last.
// The arrays are read each straight into an array of its own size: nothing else holds their bytes. With one
// `v8.deserialize` of the whole file (layout 2), an aligned array was a view of the file's buffer (all 149 MB of it
// alive behind a small array at 100,000 tools) and an unaligned one a copy beside it: 430 MB outside the heap.

/** The file's layout: a file of another is a miss, and rebuilt. */
export const LAYOUT = 7;

const MAGIC = Buffer.from('hldpsix\n', 'latin1');
const PREFIX_BYTES = 16;
const ALIGN = 8;
// a header past this is not one this code wrote (100,000 tools' names and terms are a few MB)
const MAX_HEADER_BYTES = 1 << 30;

/** The typed arrays of a stored search index, in the file's order. */
export const ARRAYS = ['counts', 'offsets', 'data', 'starts', 'lengths', 'fieldCounts', 'slots', 'codes', 'fieldLengths'] as const;
type ArrayName = (typeof ARRAYS)[number];

// the widths each array may be kept in: the records' numbers and the entries' codes and field lengths are kept as narrow
// as they fit (issue #18), the rest are 32-bit
const ARRAY_WIDTHS: Record<ArrayName, readonly Width[]> = { counts: [4], offsets: [4], data: [2, 4], starts: [4], lengths: [4], fieldCounts: [4], slots: [4], codes: WIDTHS, fieldLengths: WIDTHS };

/**
 * What a matcher measured over the index's tools, kept beside it so that a restart need not read every tool again
 * (issue #18: at 100,000 tools the calibration's count of examples and aliases made every definition from the scan
 * cache, ~1.5 s of CPU and ~200 MB of heap, before a start could match; the check for Chinese probes as much where
 * there are none). Each part is absent where it was not measured, or not as a fresh start would measure it.
 */
export interface Measured {
  /** whether an example or alias of the tools has a Chinese word (the dictionary is read before matching is ready) */
  chineseProbes?: boolean;
  /** the registry's calibration, and the ranking and decision parameters it was measured with (as JSON) */
  calibration?: { parameters: string; value: Calibration };
  /**
   * what the calibration read of each tool, by position (`CalibrationBasis`): a rescan's calibration then reads only
   * the tools it changed from the first rescan after a start on (issue #18: the first read every tool, ~2 s at 100,000)
   */
  basis?: KeptBasis;
}

/** Per tool, by position: how many examples and aliases it has, and 1 where one of them has a Chinese character. */
export interface KeptBasis {
  texts: Uint32Array;
  chinese: Uint8Array;
}

interface Header {
  version: string;
  byteOrder: string;
  /** the tools' names in order, each followed by a line feed (`joinNames`) */
  names: string;
  terms: string[];
  /** per array of ARRAYS, how many numbers it holds */
  lengths: number[];
  /** per array of ARRAYS, the bytes of each of its numbers */
  widths: Width[];
  measured: Measured;
}

/**
 * One read the decoder asks for: fill `into` from the file at `position`; answered with the bytes read. An empty
 * `into` reads nothing: it is where a reader that lets other work run may let it (the checks over the arrays come
 * a slice at a time).
 */
export interface ReadRequest {
  into: Uint8Array;
  position: number;
}

// the decoder's pause between two slices of its checks
const PAUSE: ReadRequest = { into: new Uint8Array(0), position: 0 };
// numbers checked between two pauses (a few milliseconds)
const CHECK_STEP = 1 << 20;

const padded = (bytes: number): number => Math.ceil(bytes / ALIGN) * ALIGN;

const arraysOf = (stored: SearchIndexToWrite | StoredSearchIndex): Record<ArrayName, ArraySource> => ({ ...stored.postings, counts: stored.counts, offsets: stored.offsets, data: stored.data });

const bytesOf = (array: NarrowArray): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/**
 * The file's pieces in order (prefix and header, then each array and its padding): written one after another, never
 * joined, each before the next is asked for (an array handed over a piece at a time reuses its piece).
 */
export function* encodeSearchIndexFile(version: string, stored: SearchIndexToWrite | StoredSearchIndex, measured: Measured = {}): Generator<Uint8Array, void, void> {
  const arrays = arraysOf(stored);
  const header: Header = { version, byteOrder: endianness(), names: stored.names, terms: stored.terms, lengths: ARRAYS.map((name) => arrays[name].length), widths: ARRAYS.map((name) => widthOfSource(arrays[name])), measured };
  const headerBytes = serialize(header);
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(LAYOUT, 8);
  prefix.writeUInt32LE(headerBytes.length, 12);
  yield prefix;
  yield headerBytes;
  yield new Uint8Array(padded(PREFIX_BYTES + headerBytes.length) - PREFIX_BYTES - headerBytes.length);
  for (const name of ARRAYS) {
    const array = arrays[name];
    const byteLength = array.length * widthOfSource(array);
    if (isStreamed(array)) {
      let handed = 0;
      for (const piece of array.pieces()) {
        handed += piece.length;
        yield bytesOf(piece);
      }
      // the header said how many: a file that does not add up would be read as a miss, but never written so
      if (handed !== array.length) throw new Error(`search index file: ${name} handed over ${handed} numbers, not ${array.length}`);
    } else yield bytesOf(array);
    yield new Uint8Array(padded(byteLength) - byteLength);
  }
}

/** A search index file's content. */
export interface DecodedSearchIndexFile {
  version: string;
  stored: StoredSearchIndex;
  measured: Measured;
}

/** Why a file was not read: what in it this layout did not write. */
export interface Refusal {
  refused: string;
}

/**
 * Decodes a file of `size` bytes, asking for each read it needs (yielded; the bytes read are sent back): the stored
 * index, what was measured beside it and the version it was written by, or undefined for anything this layout did not
 * write — another layout or byte order, a header that does not parse or does not add up to the file's size, arrays
 * whose numbers point outside one another. Never throws for what the file holds. With `leaveRecords`, the records'
 * numbers are not read: they are read from the file when a record is first asked for, through what it makes of where
 * they lie (a reader that keeps the file open). With `leaveLists` too, nor are the postings' slots and codes: their arrays
 * are made empty, each list read into them (and its slots checked) at its first use, through what it makes of where
 * they lie.
 */
export function* decodeSearchIndexFile(
  size: number,
  leaveRecords?: (place: RecordsPlace) => RecordFile,
  leaveLists?: (place: ListsPlace, lengths: Int32Array) => KeptLists,
): Generator<ReadRequest, DecodedSearchIndexFile | undefined, number> {
  const decoded = yield* decodeOrRefuseSearchIndexFile(size, leaveRecords, leaveLists);
  return 'refused' in decoded ? undefined : decoded;
}

/** `decodeSearchIndexFile`, saying why a file it does not read is refused (for the reader's warning). */
export function* decodeOrRefuseSearchIndexFile(
  size: number,
  leaveRecords?: (place: RecordsPlace) => RecordFile,
  leaveLists?: (place: ListsPlace, lengths: Int32Array) => KeptLists,
): Generator<ReadRequest, DecodedSearchIndexFile | Refusal, number> {
  const refused = (reason: string): Refusal => ({ refused: reason });
  const cut = refused(`cut short (${size} bytes)`);
  if (!Number.isSafeInteger(size) || size < PREFIX_BYTES) return cut;
  const prefix = Buffer.alloc(PREFIX_BYTES);
  if ((yield { into: prefix, position: 0 }) !== PREFIX_BYTES) return cut;
  if (!prefix.subarray(0, MAGIC.length).equals(MAGIC)) return refused('not a search index file (its first bytes)');
  if (prefix.readUInt32LE(8) !== LAYOUT) return refused(`of layout ${prefix.readUInt32LE(8)}, not ${LAYOUT}`);
  const headerLength = prefix.readUInt32LE(12);
  if (headerLength > MAX_HEADER_BYTES || PREFIX_BYTES + headerLength > size) return refused(`its header (${headerLength} bytes) does not fit in its ${size} bytes`);
  const headerBytes = Buffer.alloc(headerLength);
  if ((yield { into: headerBytes, position: PREFIX_BYTES }) !== headerLength) return cut;
  const header = parseHeader(headerBytes);
  if (header === undefined) return refused('its header does not parse, or is not of the shape this layout writes');
  // where each array starts; together they must end where the file does
  let position = padded(PREFIX_BYTES + headerLength);
  const starts = header.lengths.map((length, index) => {
    const at = position;
    position += padded(length * header.widths[index]!);
    return at;
  });
  if (position !== size) return refused(`its arrays end at byte ${position}, not at its end (${size} bytes): cut short or added to`);
  const arrays = {} as Record<ArrayName, NarrowArray>;
  let records: RecordFile | undefined;
  for (let index = 0; index < ARRAYS.length; index++) {
    if (ARRAYS[index] === 'data' && leaveRecords !== undefined) {
      records = leaveRecords({ position: starts[index]!, length: header.lengths[index]!, width: header.widths[index] as 2 | 4 });
      continue;
    }
    const array = arrayOf(header.widths[index]!, header.lengths[index]!);
    arrays[ARRAYS[index]!] = array;
    // left in the file: made empty (pages no one has touched), filled a list at a time
    if (records !== undefined && leaveLists !== undefined && (ARRAYS[index] === 'slots' || ARRAYS[index] === 'codes')) continue;
    const bytes = new Uint8Array(array.buffer);
    if (bytes.length > 0 && (yield { into: bytes, position: starts[index]! }) !== bytes.length) return cut;
  }
  // the widths were checked against ARRAY_WIDTHS: only codes, field lengths and the records' numbers may be narrower
  const wide = (name: ArrayName): Int32Array => arrays[name] as Int32Array;
  const postings: StoredPostings = { starts: wide('starts'), lengths: wide('lengths'), fieldCounts: wide('fieldCounts'), slots: wide('slots'), codes: arrays.codes, fieldLengths: arrays.fieldLengths };
  const slotsAt = starts[ARRAYS.indexOf('slots')]!;
  const codesAt = starts[ARRAYS.indexOf('codes')]!;
  if (records !== undefined && leaveLists !== undefined) postings.kept = leaveLists({ slots: slotsAt, codes: codesAt, codeWidth: header.widths[ARRAYS.indexOf('codes')]!, tools: toolsOf(header) }, postings.lengths);
  const stored: StoredSearchIndex = { names: header.names, terms: header.terms, counts: wide('counts'), offsets: wide('offsets'), data: records ?? (arrays.data as Uint16Array | Int32Array), postings };
  return (yield* consistentSteps(stored)) ? { version: header.version, stored, measured: header.measured } : refused('its arrays point outside one another');
}

// how many tools the file holds: one offset more than records
const toolsOf = (header: Pick<Header, 'lengths'>): number => Math.max(0, header.lengths[ARRAYS.indexOf('offsets')]! - 1);

function parseHeader(bytes: Buffer): Header | undefined {
  let header: unknown;
  try {
    header = deserialize(bytes);
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null) return undefined;
  const { version, byteOrder, names, terms, lengths, widths, measured } = header as Record<string, unknown>;
  // the names, one string (`joinNames`): each followed by a line feed, the last one too
  if (typeof version !== 'string' || byteOrder !== endianness() || typeof names !== 'string' || (names.length > 0 && !names.endsWith('\n')) || !strings(terms)) return undefined;
  if (!Array.isArray(lengths) || lengths.length !== ARRAYS.length) return undefined;
  // each array's length fits in a file no larger than a safe integer of bytes
  if (!lengths.every((length) => Number.isSafeInteger(length) && length >= 0 && length <= 2 ** 40)) return undefined;
  if (!Array.isArray(widths) || widths.length !== ARRAYS.length || !ARRAYS.every((name, index) => ARRAY_WIDTHS[name].includes(widths[index] as Width))) return undefined;
  const kept = measuredOf(measured);
  if (kept?.basis !== undefined && kept.basis.texts.length !== toolsOf({ lengths })) return undefined;
  return kept === undefined ? undefined : { version, byteOrder: endianness(), names, terms, lengths, widths: widths as Width[], measured: kept };
}

// what was measured, if it has the shape this code writes (a part of another shape: the file is not this code's)
function measuredOf(value: unknown): Measured | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { chineseProbes, calibration, basis } = value as Record<string, unknown>;
  if (chineseProbes !== undefined && typeof chineseProbes !== 'boolean') return undefined;
  const kept: Measured = chineseProbes === undefined ? {} : { chineseProbes };
  if (basis !== undefined) {
    if (!isBasis(basis)) return undefined;
    // copies: the deserialised arrays may be views of the header's bytes, which are not to be held
    kept.basis = { texts: basis.texts.slice(), chinese: basis.chinese.slice() };
  }
  if (calibration === undefined) return kept;
  if (typeof calibration !== 'object' || calibration === null) return undefined;
  const { parameters, value: measured } = calibration as Record<string, unknown>;
  if (typeof parameters !== 'string' || !isCalibration(measured)) return undefined;
  return { ...kept, calibration: { parameters, value: measured } };
}

// two arrays of one length, the second of 0 and 1 only (an indexed loop: 100,000 numbers)
function isBasis(value: unknown): value is KeptBasis {
  if (typeof value !== 'object' || value === null) return false;
  const { texts, chinese } = value as Record<string, unknown>;
  if (!(texts instanceof Uint32Array) || !(chinese instanceof Uint8Array) || texts.length !== chinese.length) return false;
  for (let at = 0; at < chinese.length; at++) if (chinese[at]! > 1) return false;
  return true;
}

function isCalibration(value: unknown): value is Calibration {
  if (typeof value !== 'object' || value === null) return false;
  const { threshold, probes, probed, provisional } = value as Record<string, unknown>;
  const probability = (number: unknown): boolean => typeof number === 'number' && number >= 0 && number <= 1;
  // a provisional cut is measured again once the dictionary is read: never kept
  return probability(threshold) && Number.isSafeInteger(probes) && (probes as number) >= 0 && (probed === undefined || probability(probed)) && provisional === undefined;
}

const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

// the numbers that say where other numbers are point inside them, so that no view or read goes out of its array
// (what the arrays say of terms and tools is the writer's: a file is written by rename, so it is whole or a miss);
// checked a slice at a time, each loop indexed (a `for … of` over 7.4 million slots took ~140 ms against ~14), and
// each slice by a plain function: the same loop inside the generator ran ~3× slower (7.4 million slots 38-46 ms of
// CPU against 13-15, a fresh process each, issue #18), as V8 optimised the generator's loop late, if at all
function* consistentSteps({ terms, counts, offsets, data, postings }: StoredSearchIndex): Generator<ReadRequest, boolean, number> {
  // one offset more than tools: the names are compared with a scan's tools when restored, not counted here
  const tools = offsets.length - 1;
  if (tools < 0 || offsets[0] !== 0 || offsets[tools] !== data.length || counts.length !== terms.length) return false;
  for (let at = 0; at < tools; at += CHECK_STEP) {
    if (at > 0) yield PAUSE;
    if (!ascending(offsets, at, Math.min(tools, at + CHECK_STEP))) return false;
  }
  return yield* postingsConsistentSteps(postings, tools, terms.length);
}

function* postingsConsistentSteps({ starts, lengths, fieldCounts, slots, codes, fieldLengths, kept }: StoredPostings, tools: number, terms: number): Generator<ReadRequest, boolean, number> {
  if (starts.length !== lengths.length || lengths.length < terms || fieldCounts.length !== lengths.length * FIELD_COUNT) return false;
  if (slots.length !== codes.length || fieldLengths.length !== tools * FIELD_COUNT) return false;
  for (let at = 0; at < starts.length; at += CHECK_STEP) {
    if (at > 0) yield PAUSE;
    if (!listsWithin(starts, lengths, at, Math.min(starts.length, at + CHECK_STEP), slots.length)) return false;
  }
  // lists left in the file are checked as each is read (`KeptLists`)
  for (let at = 0; kept === undefined && at < slots.length; at += CHECK_STEP) {
    yield PAUSE;
    if (!slotsBelow(slots, at, Math.min(slots.length, at + CHECK_STEP), tools)) return false;
  }
  return true;
}

// whether offsets[from..to] do not go down
function ascending(offsets: Int32Array, from: number, to: number): boolean {
  for (let position = from; position < to; position++) if (offsets[position + 1]! < offsets[position]!) return false;
  return true;
}

// whether the lists of terms from..to lie within `size` slots
function listsWithin(starts: Int32Array, lengths: Int32Array, from: number, to: number, size: number): boolean {
  for (let term = from; term < to; term++) {
    const start = starts[term]!;
    const length = lengths[term]!;
    if (start < 0 || length < 0 || start + length > size) return false;
  }
  return true;
}

// whether slots[from..to] are each a tool's, 0 to tools - 1
function slotsBelow(slots: Int32Array, from: number, to: number, tools: number): boolean {
  for (let slot = from; slot < to; slot++) if (slots[slot]! < 0 || slots[slot]! >= tools) return false;
  return true;
}
