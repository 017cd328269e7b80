import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { FIELD_COUNT } from '../../src/matcher/postings.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { restoreSearchIndex, splitNames, storeSearchIndex, type StoredSearchIndex } from '../../src/matcher/stored-search-index.js';
import { decodeSearchIndexFile, encodeSearchIndexFile, type DecodedSearchIndexFile, type Measured } from '../../src/matcher/search-index-layout.js';
import { arrayOf, widthOf, type NarrowArray, type Width } from '../../src/matcher/narrow-array.js';
import { plainRecord, type RecordNumbers } from '../../src/matcher/tool-record.js';
import { firstStage } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// The search index file is read back from disk, where anything may have happened to it: the decoder is held to
// never throwing, to a miss for a file cut short or grown, and to arrays that point inside one another.

/** The file's content decoded from `bytes` as the reader decodes it from a file (each read served from the bytes). */
function decode(bytes: Uint8Array): DecodedSearchIndexFile | undefined {
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
const probability = fc.double({ min: 0, max: 1, noNaN: true });
const measuredArbitrary: fc.Arbitrary<Measured> = fc.record(
  { chineseProbes: fc.boolean(), calibration: fc.record({ parameters: fc.string(), value: fc.record({ threshold: probability, probes: fc.nat(), probed: probability }, { requiredKeys: ['threshold', 'probes'] }) }) },
  { requiredKeys: [] },
);
// what the calibration read of each tool, for `count` tools, from a few generated pairs repeated (none: no basis kept)
const basisArbitrary = fc.array(fc.tuple(fc.nat({ max: 2 ** 32 - 1 }), fc.boolean()), { maxLength: 4 });
const basisOf = (pairs: Array<[number, boolean]>, count: number): Measured['basis'] =>
  pairs.length === 0 ? undefined : { texts: Uint32Array.from({ length: count }, (_, at) => pairs[at % pairs.length]![0]), chinese: Uint8Array.from({ length: count }, (_, at) => (pairs[at % pairs.length]![1] ? 1 : 0)) };
const fileOf = (tools: ToolDefinition[], version = 'v', measured: Measured = {}): Buffer => Buffer.concat([...encodeSearchIndexFile(version, storeSearchIndex(buildSearchIndex(tools)), measured)]);

/** What a decoded file says was measured has the shape its writer gives it. */
function expectMeasured(measured: Measured): void {
  expect(Object.keys(measured).every((key) => key === 'chineseProbes' || key === 'calibration' || key === 'basis')).toBe(true);
  if (measured.chineseProbes !== undefined) expect(typeof measured.chineseProbes).toBe('boolean');
  if (measured.basis !== undefined) {
    expect(measured.basis.texts).toBeInstanceOf(Uint32Array);
    expect(measured.basis.chinese).toBeInstanceOf(Uint8Array);
    expect(measured.basis.chinese.length).toBe(measured.basis.texts.length);
    expect(measured.basis.chinese.every((value) => value <= 1)).toBe(true);
  }
  if (measured.calibration === undefined) return;
  expect(typeof measured.calibration.parameters).toBe('string');
  const { threshold, probes, probed, provisional } = measured.calibration.value;
  expect(threshold >= 0 && threshold <= 1 && Number.isSafeInteger(probes) && probes >= 0).toBe(true);
  if (probed !== undefined) expect(probed >= 0 && probed <= 1).toBe(true);
  expect(provisional).toBeUndefined();
}

/** What a decoded index must hold for every view and read over it to stay inside its arrays. */
function expectConsistent({ names, terms, counts, offsets, data, postings }: StoredSearchIndex): void {
  // one offset more than tools; the names (one string, each followed by a line feed) are compared with the tools at restore
  const tools = offsets.length - 1;
  expect(tools).toBeGreaterThanOrEqual(0);
  if (names !== '') expect(names.endsWith('\n')).toBe(true);
  expect(offsets[0]).toBe(0);
  expect(offsets[tools]).toBe(data.length);
  for (let at = 0; at < tools; at++) expect(offsets[at + 1]).toBeGreaterThanOrEqual(offsets[at]!);
  expect(counts.length).toBe(terms.length);
  expect(postings.fieldLengths.length).toBe(tools * FIELD_COUNT);
  for (let term = 0; term < postings.starts.length; term++) expect(postings.starts[term]! + postings.lengths[term]!).toBeLessThanOrEqual(postings.slots.length);
  for (const slot of postings.slots) expect(slot).toBeLessThan(tools);
}

describe('the search index file', () => {
  it('reads back exactly what was written', () => {
    fc.assert(
      fc.property(toolsArbitrary, fc.string(), measuredArbitrary, basisArbitrary, (tools, version, measuredOnly, pairs) => {
        const basis = basisOf(pairs, tools.length);
        const measured: Measured = basis === undefined ? measuredOnly : { ...measuredOnly, basis };
        const stored = storeSearchIndex(buildSearchIndex(tools));
        const decoded = decode(Buffer.concat([...encodeSearchIndexFile(version, stored, measured)]));
        expect(decoded).toEqual({ version, stored, measured });
        expect(restoreSearchIndex(decoded!.stored, tools)).toBeDefined();
      }),
      { numRuns: runs(60) },
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
        expect(widthOf(narrow.data as RecordNumbers)).toBe(2);
        expect(widthOf(narrow.postings.codes)).toBe(1);
        expect(widthOf(narrow.postings.fieldLengths)).toBe(1);
        const postings = { ...narrow.postings, codes: wideOf(narrow.postings.codes, codesWidth), fieldLengths: wideOf(narrow.postings.fieldLengths, lengthsWidth) };
        const stored: StoredSearchIndex = { ...narrow, data: wideOf(narrow.data as RecordNumbers, dataWidth) as RecordNumbers, postings };
        const decoded = decode(Buffer.concat([...encodeSearchIndexFile('v', stored)]))!;
        expect(decoded.stored).toEqual(stored);
        for (const [read, written] of [[decoded.stored.data as RecordNumbers, stored.data as RecordNumbers], [decoded.stored.postings.codes, postings.codes], [decoded.stored.postings.fieldLengths, postings.fieldLengths]] as const) expect(widthOf(read)).toBe(widthOf(written));
        const asNarrow = restoreSearchIndex(narrow, tools)!;
        const asWide = restoreSearchIndex(decoded.stored, tools)!;
        expect(asWide.records.map((record) => plainRecord(record))).toEqual(asNarrow.records.map((record) => plainRecord(record)));
        for (const words of [['read', 'file'], ['weather', 'tokyo'], ['提交'], ['joke', 'money', 'convert']]) {
          const terms = words.map((term) => ({ term, weight: 1 }));
          expect(firstStage(asWide, FITTED_RANKING, terms)).toEqual(firstStage(asNarrow, FITTED_RANKING, terms));
        }
      }),
      { numRuns: runs(60) },
    );
  });

  it('is a miss when cut short anywhere or longer than written', () => {
    fc.assert(
      fc.property(toolsArbitrary, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 }), (tools, cut, extra) => {
        const bytes = fileOf(tools);
        expect(decode(bytes.subarray(0, cut % bytes.length))).toBeUndefined();
        expect(decode(Buffer.concat([bytes, extra]))).toBeUndefined();
      }),
      { numRuns: runs(60) },
    );
  });

  it('never throws over bytes changed anywhere, and what it still reads points inside its own arrays', () => {
    fc.assert(
      fc.property(toolsArbitrary, measuredArbitrary, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), (tools, measured, changes) => {
        const bytes = fileOf(tools, 'v', measured);
        for (const [at, value] of changes) bytes[at % bytes.length] = value;
        const decoded = decode(bytes);
        if (decoded) {
          expectConsistent(decoded.stored);
          expectMeasured(decoded.measured);
          // restored over tools of its names, every record's view is inside its data
          const named = splitNames(decoded.stored.names).map((name) => makeToolDefinition({ name }));
          const restored = restoreSearchIndex(decoded.stored, named);
          for (const record of restored?.records ?? []) expect(record.data.buffer).toBe((decoded.stored.data as RecordNumbers).buffer);
        }
      }),
      { numRuns: runs(200) },
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
      { numRuns: runs(300) },
    );
  });

  it('is a miss when what was measured beside the index is not of the shape its writer gives it', () => {
    const tools = [makeToolDefinition({ name: 'a', intent: 'read the file' }), makeToolDefinition({ name: 'b', intent: 'convert money' })];
    fc.assert(
      fc.property(fc.anything(), (anything) => {
        // written as any value at all in the measured part's place: read back as that shape, or a miss, never thrown
        const decoded = decode(fileOf(tools, 'v', anything as Measured));
        if (decoded) expectMeasured(decoded.measured);
      }),
      { numRuns: runs(300) },
    );
    for (const wrong of [null, 'yes', { chineseProbes: 'no' }, { calibration: { parameters: 1, value: { threshold: 0.5, probes: 3 } } }, { calibration: { parameters: '', value: { threshold: 2, probes: 3 } } }, { calibration: { parameters: '', value: { threshold: 0.5, probes: -1 } } }, { calibration: { parameters: '', value: { threshold: 0.5, probes: 3, provisional: true } } },
      // a basis of another length than the tools, of other arrays, or saying 2 where it says whether a tool has Chinese
      { basis: { texts: new Uint32Array(1), chinese: new Uint8Array(1) } }, { basis: { texts: [1, 2], chinese: new Uint8Array(2) } }, { basis: { texts: new Int32Array(2), chinese: new Uint8Array(2) } }, { basis: { texts: new Uint32Array(2), chinese: new Uint8Array([0, 2]) } }, { basis: { texts: new Uint32Array(2) } }]) {
      expect(decode(fileOf(tools, 'v', wrong as Measured))).toBeUndefined();
    }
  });
});
