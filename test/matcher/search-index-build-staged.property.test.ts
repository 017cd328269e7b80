import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { compactedPostingsSteps, renumbering } from '../../src/matcher/compacted-postings.js';
import { firstStage } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { Postings } from '../../src/matcher/postings.js';
import { buildSearchIndex, buildSearchIndexSteps, DocumentFrequency, index, slotsOf, snapshot, type SearchEngine, type SearchIndex } from '../../src/matcher/search-index.js';
import { storeSearchIndex } from '../../src/matcher/stored-search-index.js';
import { TermDictionary } from '../../src/matcher/tool-record.js';
import { ToolRecords } from '../../src/matcher/tool-records.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// Issue #18: a first build stages each tool's entries and places them in tight lists once every tool is analysed,
// where it added each tool's entries to lists grown as they filled (~380 MB of arrays at 100,000 tools, the peak of a
// cold `hldp serve`). The index it makes must be exactly the one the tools added in turn and compacted made: the same
// postings (lists, counts, field lengths, codes as narrow), records and dictionary, so every answer and kept file too.

// the build before the change: each tool added to growing lists, then the lists compacted
function addedInTurn(tools: readonly ToolDefinition[]): SearchIndex {
  const dictionary = new TermDictionary();
  const engine: SearchEngine = { postings: new Postings(), dictionary, documentFrequency: new DocumentFrequency(dictionary), version: 0 };
  const records = tools.map((tool) => index(engine, tool));
  const { postings } = engine;
  const steps = compactedPostingsSteps(postings, renumbering(slotsOf(records), postings.slotCount), records.length);
  let step = steps.next();
  while (!step.done) step = steps.next();
  postings.adopt({ ...step.value, fieldCounts: postings.fieldCounts });
  return snapshot(engine, tools, ToolRecords.of(records));
}

const WORDS = ['weather', 'invoice', 'ledger', 'parcel', 'harbour', 'printer', 'ticket', 'payroll', 'read', 'file', '天气', 'погода', 'x1', 'the', 'crème'];
const words = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 8 }).map((list) => list.join(' '));
// a word said many times over: a term frequency of 16 or more needs codes wider than a byte
const repeated = fc.tuple(fc.constantFrom(...WORDS), fc.integer({ min: 1, max: 40 })).map(([word, times]) => Array.from({ length: times }, () => word).join(' '));
const tool = (at: number): fc.Arbitrary<ToolDefinition> =>
  fc
    .record({ intent: fc.oneof(words, repeated), why: words, display: fc.oneof(fc.constant(''), words), aliases: fc.array(words, { maxLength: 2 }), examples: fc.array(fc.oneof(words, repeated), { maxLength: 3 }), param: fc.oneof(fc.constant(undefined), fc.constantFrom('city', 'file_path', 'amount')) })
    .map(({ intent, why, display, aliases, examples, param }) =>
      makeToolDefinition({
        name: `tool-${String(at).padStart(3, '0')}`,
        intent: intent === '' ? 'do it' : intent,
        why,
        display,
        aliases: aliases.filter((alias) => alias !== ''),
        examples: examples.filter((example) => example !== ''),
        params_schema: { type: 'object', properties: param === undefined ? {} : { [param]: { type: 'string', description: intent } }, required: [], additionalProperties: false },
      }),
    );
const registry = fc.integer({ min: 0, max: 40 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, at) => tool(at))));

const REQUESTS = [['weather'], ['read', 'file'], ['ledger', 'printer', 'ticket'], ['x1']];

describe('buildSearchIndex', () => {
  it('makes exactly the index the tools added in turn and compacted made', () => {
    fc.assert(
      fc.property(registry, (tools) => {
        const built = buildSearchIndex(tools);
        const before = addedInTurn(tools);
        expect(storeSearchIndex(built)).toEqual(storeSearchIndex(before));
        // what the stored form leaves out: room to grow, the live slots, the per-term arrays' sizes
        expect(built.engine.postings.capacities).toEqual(before.engine.postings.capacities);
        expect(built.engine.postings.alive).toEqual(before.engine.postings.alive);
        expect(built.engine.postings.codes.BYTES_PER_ELEMENT).toBe(before.engine.postings.codes.BYTES_PER_ELEMENT);
        expect(built.averageFieldLengths).toEqual(before.averageFieldLengths);
        for (const request of REQUESTS) {
          const terms = request.map((term) => ({ term, weight: 1 }));
          expect(firstStage(built, { ...FITTED_RANKING, depth: 50 }, terms)).toEqual(firstStage(before, { ...FITTED_RANKING, depth: 50 }, terms));
        }
      }),
      { numRuns: runs(40) },
    );
    // a few seconds quiet; generous for a loaded machine (two builds of each registry)
  }, propertyTimeout(240_000));

  it('places the entries of a registry larger than a staging chunk, a step at a time, as the tools added in turn', () => {
    // 5,000 tools of ~14 entries each: two chunks of 65,536 codes, several steps of the placing
    const tools = Array.from({ length: 5000 }, (_, at) =>
      makeToolDefinition({ name: `t-${String(at).padStart(5, '0')}`, intent: `${WORDS[at % WORDS.length]} ${WORDS[(at * 7) % WORDS.length]} word${at} ${'ledger '.repeat(at % 20)}`, why: `number${at % 97} ${WORDS[(at * 3) % WORDS.length]}`, examples: [`read the ${WORDS[(at * 5) % WORDS.length]} of word${at}`] }),
    );
    const steps = buildSearchIndexSteps(tools);
    let stops = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) stops += 1;
    expect(stops).toBeGreaterThan(tools.length / 16);
    expect(step.value.engine.postings.slots.length).toBeGreaterThan(1 << 16);
    expect(storeSearchIndex(step.value)).toEqual(storeSearchIndex(addedInTurn(tools)));
  }, 240_000);
});
