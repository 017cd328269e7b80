/**
 * A typed array of non-negative integers as narrow as its numbers allow. Most of a search index's numbers fit in 8 or
 * 16 bits (entry codes, field lengths, a record's term ids): held as 32-bit numbers they were most of a 100,000-tool
 * server's memory outside V8's heap (issue #18).
 */
export type NarrowArray = Uint8Array | Uint16Array | Int32Array;

/** Bytes per number of a narrow array. */
export type Width = 1 | 2 | 4;

/** The widths a narrow array may have, narrowest first. */
export const WIDTHS: readonly Width[] = [1, 2, 4];

const LARGEST: Record<Width, number> = { 1: 0xff, 2: 0xffff, 4: 0x7fffffff };

/** The narrowest width, no narrower than `narrowest`, that holds `value` (a non-negative 31-bit integer). */
export function widthFor(value: number, narrowest: Width = 1): Width {
  return WIDTHS.find((width) => width >= narrowest && value <= LARGEST[width])!;
}

/** The width of `array`'s numbers. */
export function widthOf(array: NarrowArray): Width {
  return array.BYTES_PER_ELEMENT as Width;
}

/** A zeroed array of `length` numbers of `width` bytes. */
export function arrayOf(width: Width, length: number): NarrowArray {
  return width === 1 ? new Uint8Array(length) : width === 2 ? new Uint16Array(length) : new Int32Array(length);
}

/** The largest number of `values` (0 for none). */
export function largest(values: ArrayLike<number>): number {
  let found = 0;
  for (let at = 0; at < values.length; at++) if (values[at]! > found) found = values[at]!;
  return found;
}

/** `values` in the narrowest array (no narrower than `narrowest`) that holds them all: `values` itself when it is that width already. */
export function narrowed(values: NarrowArray, narrowest: Width = 1): NarrowArray {
  const width = widthFor(largest(values), narrowest);
  if (width === widthOf(values)) return values;
  const array = arrayOf(width, values.length);
  array.set(values);
  return array;
}

/** `array`, or a copy of it wide enough to hold `value` as well (a rescan may bring a number the narrow array cannot hold). */
export function holding(array: NarrowArray, value: number): NarrowArray {
  if (value <= LARGEST[widthOf(array)]) return array;
  const wider = arrayOf(widthFor(value, widthOf(array)), array.length);
  wider.set(array);
  return wider;
}

/** `array`'s numbers in an array of `length` of the same width (cut or padded with zeros). */
export function resized(array: NarrowArray, length: number): NarrowArray {
  const copy = arrayOf(widthOf(array), length);
  copy.set(array.subarray(0, Math.min(array.length, length)));
  return copy;
}

/**
 * An array handed over a piece at a time, never whole: its length, the width of its numbers and, in order, its numbers
 * in pieces of that width, each valid only until the next is asked for (a writer writes each before it asks again).
 */
export interface StreamedArray {
  readonly length: number;
  readonly width: Width;
  pieces(): Iterable<NarrowArray>;
}

/** A narrow array, or one handed over a piece at a time. */
export type ArraySource = NarrowArray | StreamedArray;

/** `source`'s numbers in one array of its width. */
export function wholeOf(source: ArraySource): NarrowArray {
  if (!isStreamed(source)) return source;
  const whole = arrayOf(source.width, source.length);
  let filled = 0;
  for (const piece of source.pieces()) {
    whole.set(piece, filled);
    filled += piece.length;
  }
  if (filled !== source.length) throw new Error(`a streamed array of ${source.length} numbers handed over ${filled}`);
  return whole;
}

/** Whether `source` is handed over a piece at a time. */
export const isStreamed = (source: ArraySource): source is StreamedArray => !ArrayBuffer.isView(source);

/** The width of `source`'s numbers. */
export const widthOfSource = (source: ArraySource): Width => (isStreamed(source) ? source.width : widthOf(source));
