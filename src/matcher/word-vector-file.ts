import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

// The layout: MAGIC, a uint32 (little-endian) length and that many bytes of JSON header ({dimensions, count, source}),
// a uint32 length and the stems as UTF-8 joined by '\n', padding to 4 bytes, then per stem its rank (uint32), its
// scale (float32), and last its vector as `dimensions` signed bytes (the unit vector divided by its scale).
const MAGIC = 'HLDPWV01';

/** Word vectors by index term (an English word's Porter stem): what the vector stage reads. */
export interface WordVectors {
  readonly dimensions: number;
  readonly count: number;
  /** the stem's row, if the table has it */
  idOf(stem: string): number | undefined;
  /** adds `weight` × the stem's unit vector to `into` */
  addTo(into: Float64Array, id: number, weight: number): void;
  /** how much a stem says about a text: SIF's a / (a + p(w)), p by Zipf's law from its frequency rank (common words ~0) */
  weightOf(id: number): number;
}

/** What the derivation writes. */
export interface WordVectorSource {
  dimensions: number;
  stems: string[];
  ranks: number[];
  vectors: ArrayLike<number>[];
  source: string;
}

/** The file's bytes for `table` (each vector made a unit vector and quantised to 8 bits). */
export function encodeWordVectors(table: WordVectorSource): Buffer {
  const { dimensions, stems } = table;
  const header = Buffer.from(JSON.stringify({ dimensions, count: stems.length, source: table.source }));
  const words = Buffer.from(stems.join('\n'));
  const head = Buffer.alloc(8 + 4 + header.length + 4 + words.length);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(header.length, 8);
  header.copy(head, 12);
  head.writeUInt32LE(words.length, 12 + header.length);
  words.copy(head, 16 + header.length);
  const padding = Buffer.alloc((4 - (head.length % 4)) % 4);
  const ranks = Uint32Array.from(table.ranks);
  const scales = new Float32Array(stems.length);
  const quantised = new Int8Array(stems.length * dimensions);
  table.vectors.forEach((vector, row) => {
    let norm = 0;
    let largest = 0;
    for (let at = 0; at < dimensions; at++) norm += vector[at]! ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let at = 0; at < dimensions; at++) largest = Math.max(largest, Math.abs(vector[at]! / norm));
    const scale = largest / 127 || 1;
    scales[row] = scale;
    for (let at = 0; at < dimensions; at++) quantised[row * dimensions + at] = Math.round(vector[at]! / norm / scale);
  });
  return Buffer.concat([head, padding, Buffer.from(ranks.buffer), Buffer.from(scales.buffer), Buffer.from(quantised.buffer)]);
}

/** The table in `bytes` (a file `encodeWordVectors` wrote); throws on any other. */
export function decodeWordVectors(bytes: Uint8Array): WordVectors {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a word vector file (its first bytes are not HLDPWV01)');
  const headerLength = buffer.readUInt32LE(8);
  const { dimensions, count } = JSON.parse(buffer.toString('utf8', 12, 12 + headerLength)) as { dimensions: number; count: number };
  const wordsLength = buffer.readUInt32LE(12 + headerLength);
  const wordsEnd = 16 + headerLength + wordsLength;
  const stems = buffer.toString('utf8', 16 + headerLength, wordsEnd).split('\n');
  if (stems.length !== count) throw new Error(`word vector file: ${stems.length} stems where its header says ${count}`);
  let at = wordsEnd + ((4 - (wordsEnd % 4)) % 4);
  if (buffer.length < at + 8 * count + count * dimensions) throw new Error('word vector file: truncated');
  // views over the file's own bytes where they are aligned for 32-bit views (a file read whole is), else copies: copying
  // the ~2.7 MB of vectors into fresh pages was a third of the decode's CPU, which a server's first request paid (issue #18)
  const view32 = <T>(make: new (buffer: ArrayBufferLike, offset: number, length: number) => T, from: number): T =>
    (buffer.byteOffset + from) % 4 === 0 ? new make(buffer.buffer, buffer.byteOffset + from, count) : new make(buffer.buffer.slice(buffer.byteOffset + from, buffer.byteOffset + from + 4 * count), 0, count);
  const ranks = view32(Uint32Array, at);
  at += 4 * count;
  const scales = view32(Float32Array, at);
  at += 4 * count;
  const vectors = new Int8Array(buffer.buffer, buffer.byteOffset + at, count * dimensions);
  const ids = new Map<string, number>();
  stems.forEach((stem, id) => ids.set(stem, id));
  // Zipf: p(rank) = 1 / (rank × H), H the harmonic number of the table's words; the largest rank by a loop, not
  // Math.max over 27,000 spread arguments
  let largest = 1;
  for (const rank of ranks) if (rank > largest) largest = rank;
  const harmonic = Math.log(largest) + 0.5772;
  const smoothing = 1e-3;
  return {
    dimensions,
    count,
    idOf: (stem) => ids.get(stem),
    addTo: (into, id, weight) => {
      const factor = weight * scales[id]!;
      const base = id * dimensions;
      for (let at = 0; at < dimensions; at++) into[at]! += vectors[base + at]! * factor;
    },
    weightOf: (id) => smoothing / (smoothing + 1 / (ranks[id]! * harmonic)),
  };
}

const FILE = new URL('../../assets/word-vectors/english-stems.bin', import.meta.url);

let table: WordVectors | undefined;
let failed = false;

/** The English word vectors shipped in assets/, read at the first call (~3 MB); undefined where they cannot be read. */
export function wordVectors(): WordVectors | undefined {
  if (table === undefined && !failed) {
    try {
      table = decodeWordVectors(readFileSync(FILE));
    } catch {
      failed = true;
    }
  }
  return table;
}

/** Whether `wordVectors` has read the table (or failed to): for tests. */
export function wordVectorsRead(): boolean {
  return table !== undefined || failed;
}

/** Reads the word vectors without blocking the event loop on the file (a server, once it listens). */
export async function loadWordVectors(): Promise<void> {
  if (table !== undefined || failed) return;
  try {
    const bytes = await readFile(FILE);
    table ??= decodeWordVectors(bytes);
  } catch {
    failed = true;
  }
}
