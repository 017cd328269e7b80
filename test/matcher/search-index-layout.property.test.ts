import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { FIELD_COUNT } from '../../src/matcher/postings.js';
import { buildSearchIndex, restoreSearchIndex, storeSearchIndex, type StoredSearchIndex } from '../../src/matcher/search-index.js';
import { decodeSearchIndexFile, encodeSearchIndexFile } from '../../src/matcher/search-index-layout.js';
import { arrayOf, widthOf, type NarrowArray, type Width } from '../../src/matcher/narrow-array.js';
import { plainRecord } from '../../src/matcher/tool-record.js';
import { firstStage } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { makeToolDefinition } from './helpers.js';

// The search index file is read back from disk, where anything may have happened to it: the decoder is held to
// never throwing, to a miss for a file cut short or grown, and to arrays that point inside one another.

/** The file's content decoded from `bytes` as the reader decodes it from a file (each read served from the bytes). */
function decode(bytes: Uint8Array): { version: string; stored: StoredSearchIndex } | undefined {
  const decoding = decodeSearchIndexFile(bytes.length);
  for (let step = decoding.next(0); ; ) {
    if (step.done) return step.value;
    const { into, position } = step.value;
    const piece = bytes.subarray(position, position + into.length);
    into.set(piece);
    step = decoding.next(piece.length);
  }
}

const word = fc.constantFrom('read', 'file', 'weather', 'Tokyo', 'convert', 'money', '提交', 'коммит', 'joke', 'the', 'a');
const toolsArbitrary = fc.array(fc.record({ intent: fc.array(word, { minLength: 1, maxLength: 8 }), aliases: fc.array(word, { maxLength: 2 }) }), { minLength: 1, maxLength: 6 }).map((tools) =>
  tools.map(({ intent, aliases }, at): ToolDefinition => makeToolDefinition({ name: `tool-${at}`, intent: intent.join(' '), aliases: aliases.map((alias) => `${alias}-${at}`) })),
);
const fileOf = (tools: ToolDefinition[], version = 'v'): Buffer => Buffer.concat(encodeSearchIndexFile(version, storeSearchIndex(buildSearchIndex(tools))));

/** What a decoded index must hold for every view and read over it to stay inside its arrays. */
function expectConsistent({ names, terms, counts, offsets, data, postings }: StoredSearchIndex): void {
  expect(offsets.length).toBe(names.length + 1);
  expect(offsets[0]).toBe(0);
  expect(offsets[names.length]).toBe(data.length);
  for (let at = 0; at < names.length; at++) expect(offsets[at + 1]).toBeGreaterThanOrEqual(offsets[at]!);
  expect(counts.length).toBe(terms.length);
  expect(postings.fieldLengths.length).toBe(names.length * FIELD_COUNT);
  for (let term = 0; term < postings.starts.length; term++) expect(postings.starts[term]! + postings.lengths[term]!).toBeLessThanOrEqual(postings.slots.length);
  for (const slot of postings.slots) expect(slot).toBeLessThan(names.length);
}

describe('the search index file', () => {
  it('reads back exactly what was written', () => {
    fc.assert(
      fc.property(toolsArbitrary, fc.string(), (tools, version) => {
        const stored = storeSearchIndex(buildSearchIndex(tools));
        const decoded = decode(Buffer.concat(encodeSearchIndexFile(version, stored)));
        expect(decoded).toEqual({ version, stored });
        expect(restoreSearchIndex(decoded!.stored, tools)).toBeDefined();
      }),
      { numRuns: 60 },
    );
  });

  it('reads back each array in the width it was written in, narrow or wide, and a restored index answers the same either way', () => {
    const wideOf = (values: NarrowArray, width: Width): NarrowArray => {
      const array = arrayOf(Math.max(width, widthOf(values)) as Width, values.length);
      array.set(values);
      return array;
    };
    fc.assert(
      fc.property(toolsArbitrary, fc.constantFrom<Width>(2, 4), fc.constantFrom<Width>(1, 2, 4), fc.constantFrom<Width>(1, 2, 4), (tools, dataWidth, codesWidth, lengthsWidth) => {
        const narrow = storeSearchIndex(buildSearchIndex(tools));
        // the narrowest that holds them: what a build keeps
        expect(widthOf(narrow.data)).toBe(2);
        expect(widthOf(narrow.postings.codes)).toBe(1);
        expect(widthOf(narrow.postings.fieldLengths)).toBe(1);
        const postings = { ...narrow.postings, codes: wideOf(narrow.postings.codes, codesWidth), fieldLengths: wideOf(narrow.postings.fieldLengths, lengthsWidth) };
        const stored: StoredSearchIndex = { ...narrow, data: wideOf(narrow.data, dataWidth) as Uint16Array | Int32Array, postings };
        const decoded = decode(Buffer.concat(encodeSearchIndexFile('v', stored)))!;
        expect(decoded.stored).toEqual(stored);
        for (const [read, written] of [[decoded.stored.data, stored.data], [decoded.stored.postings.codes, postings.codes], [decoded.stored.postings.fieldLengths, postings.fieldLengths]] as const) expect(widthOf(read)).toBe(widthOf(written));
        const asNarrow = restoreSearchIndex(narrow, tools)!;
        const asWide = restoreSearchIndex(decoded.stored, tools)!;
        expect(asWide.records.map((record) => plainRecord(record))).toEqual(asNarrow.records.map((record) => plainRecord(record)));
        for (const words of [['read', 'file'], ['weather', 'tokyo'], ['提交'], ['joke', 'money', 'convert']]) {
          const terms = words.map((term) => ({ term, weight: 1 }));
          expect(firstStage(asWide, FITTED_RANKING, terms)).toEqual(firstStage(asNarrow, FITTED_RANKING, terms));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('is a miss when cut short anywhere or longer than written', () => {
    fc.assert(
      fc.property(toolsArbitrary, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 }), (tools, cut, extra) => {
        const bytes = fileOf(tools);
        expect(decode(bytes.subarray(0, cut % bytes.length))).toBeUndefined();
        expect(decode(Buffer.concat([bytes, extra]))).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('never throws over bytes changed anywhere, and what it still reads points inside its own arrays', () => {
    fc.assert(
      fc.property(toolsArbitrary, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), (tools, changes) => {
        const bytes = fileOf(tools);
        for (const [at, value] of changes) bytes[at % bytes.length] = value;
        const decoded = decode(bytes);
        if (decoded) {
          expectConsistent(decoded.stored);
          // restored over tools of its names, every record's view is inside its data
          const named = decoded.stored.names.map((name) => makeToolDefinition({ name }));
          const restored = restoreSearchIndex(decoded.stored, named);
          for (const record of restored?.records ?? []) expect(record.data.buffer).toBe(decoded.stored.data.buffer);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never throws over arbitrary bytes, or over a valid start followed by anything', () => {
    const start = fileOf([makeToolDefinition({ name: 'a' })]).subarray(0, 16);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.boolean(), (tail, afterStart) => {
        const bytes = afterStart ? Buffer.concat([start, tail]) : Buffer.from(tail);
        expect(() => decode(bytes)).not.toThrow();
        const decoded = decode(bytes);
        if (decoded) expectConsistent(decoded.stored);
      }),
      { numRuns: 300 },
    );
  });
});
