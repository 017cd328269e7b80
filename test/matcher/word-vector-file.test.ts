import { describe, expect, it } from 'vitest';
import { decodeWordVectors, encodeWordVectors, type WordVectorSource } from '../../src/matcher/word-vector-file.js';

const SOURCE: WordVectorSource = {
  dimensions: 3,
  stems: ['run', 'file', 'über'],
  ranks: [1, 40, 7],
  vectors: [
    [1, 0, 0],
    [0.6, 0.8, 0],
    [0, -3, 4],
  ],
  source: 'test',
};

function vectorOf(table: ReturnType<typeof decodeWordVectors>, stem: string): number[] {
  const into = new Float64Array(table.dimensions);
  table.addTo(into, table.idOf(stem)!, 1);
  return [...into];
}

describe('decodeWordVectors', () => {
  // Issue #18: the table is read with views over the file's bytes where they are aligned (a file read whole), copies
  // where not: the same table either way
  it.each([0, 1, 2, 3])('reads the same table from bytes at offset %i of their buffer', (offset) => {
    const encoded = encodeWordVectors(SOURCE);
    const bytes = new Uint8Array(new ArrayBuffer(encoded.length + offset), offset, encoded.length);
    bytes.set(encoded);
    const table = decodeWordVectors(bytes);
    expect(table.count).toBe(3);
    expect(vectorOf(table, 'run')[0]).toBeCloseTo(1, 2);
    expect(vectorOf(table, 'file').map((value) => Number(value.toFixed(2)))).toEqual([0.6, 0.8, 0]);
    expect(vectorOf(table, 'über').map((value) => Number(value.toFixed(2)))).toEqual([0, -0.6, 0.8]);
    expect(table.idOf('absent')).toBeUndefined();
    // a common word (rank 1) says less than a rare one (rank 40)
    expect(table.weightOf(table.idOf('run')!)).toBeLessThan(table.weightOf(table.idOf('file')!));
  });

  it('refuses a file cut short, and one that is not a word vector file', () => {
    const encoded = encodeWordVectors(SOURCE);
    expect(() => decodeWordVectors(encoded.subarray(0, encoded.length - 1))).toThrow('word vector file: truncated');
    expect(() => decodeWordVectors(Buffer.from('not a table at all'))).toThrow('not a word vector file');
  });
});
