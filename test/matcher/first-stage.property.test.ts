import fc from 'fast-check';
import MiniSearch, { type SearchResult } from 'minisearch';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { analyze } from '../../src/matcher/analyze.js';
import { firstStage, type FirstStageHit, type WeightedTerm } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import type { RankingParameters } from '../../src/matcher/ranking-parameters.js';
import { FIELD_GROUPS, SEARCH_FIELDS, type FieldGroup } from '../../src/matcher/search-document.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { restoreSearchIndex, storeSearchIndex } from '../../src/matcher/stored-search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { describeTool, type IndexedDocument } from '../../src/matcher/tool-record.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// The oracle: the first stage as it was, minisearch over the same analysed documents built afresh, asked for the same
// terms with the same options, its results cut to `depth` by score then position.
const splitTerms = (text: string): string[] => (text.length === 0 ? [] : text.split(' '));
const sameTerm = (term: string): string => term;

function minisearchFirstStage(tools: readonly ToolDefinition[], parameters: RankingParameters, terms: WeightedTerm[]): FirstStageHit[] {
  const minisearch = new MiniSearch<IndexedDocument>({
    fields: [...SEARCH_FIELDS],
    tokenize: splitTerms,
    processTerm: sameTerm,
    searchOptions: { tokenize: splitTerms, processTerm: sameTerm, combineWith: 'OR' },
  });
  const documents = tools.map((tool, position) => ({ ...describeTool(tool).document, id: position }));
  minisearch.addAll(documents);
  const frequency = new Map<string, number>();
  for (const document of documents) {
    for (const term of new Set(SEARCH_FIELDS.flatMap((field) => splitTerms(document[field])))) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const chosen = choose(frequency, terms, parameters);
  if (chosen.size === 0) return [];
  const boost: Record<string, number> = {};
  for (const [group, fields] of Object.entries(FIELD_GROUPS)) for (const field of fields) boost[field] = parameters.boosts[group as FieldGroup];
  const results = minisearch.search([...chosen.keys()].join(' '), { boost, bm25: parameters.bm25, boostTerm: (term) => chosen.get(term) ?? 1 });
  return best(results, parameters.depth);
}

// each request word's terms the tools have, in the word's order, take turns: every word's first (rarest first), then
// every word's second…; a term that would overflow the postings budget is skipped (unless none was chosen yet)
function choose(frequencies: Map<string, number>, terms: WeightedTerm[], parameters: RankingParameters): Map<string, number> {
  const candidates: Array<{ term: string; turn: number; weight: number }> = [];
  const perWord = new Map<number, number>();
  terms.forEach(({ term, weight, word }, at) => {
    if (!frequencies.has(term)) return;
    const key = word ?? -1 - at;
    const turn = perWord.get(key) ?? 0;
    perWord.set(key, turn + 1);
    candidates.push({ term, turn, weight });
  });
  const turns = new Map<string, number>();
  const weights = new Map<string, number>();
  for (const { term, turn, weight } of candidates) {
    turns.set(term, Math.min(turn, turns.get(term) ?? Infinity));
    weights.set(term, Math.max(weight, weights.get(term) ?? 0));
  }
  const order = [...turns.keys()].sort((a, b) => turns.get(a)! - turns.get(b)! || frequencies.get(a)! - frequencies.get(b)!);
  const chosen = new Map<string, number>();
  let postings = 0;
  for (const term of order) {
    if (chosen.size === parameters.maxTerms) break;
    if (chosen.size > 0 && postings + frequencies.get(term)! > parameters.postingsBudget) continue;
    postings += frequencies.get(term)!;
    chosen.set(term, weights.get(term)!);
  }
  return chosen;
}

function best(results: SearchResult[], depth: number): FirstStageHit[] {
  const hits = results.map((result): FirstStageHit => ({ position: result.id as number, score: result.score }));
  hits.sort((a, b) => b.score - a.score || a.position - b.position);
  return hits.slice(0, depth);
}

// words that meet across tools and requests, repeated within a field (term frequencies above 1), in several scripts
const WORDS = ['read', 'reading', 'file', 'files', 'weather', 'forecast', 'Tokyo', 'convert', 'USD', 'EUR', 'git', 'commit', 'log', 'getWeather', 'calculate_area', '查看', '提交', '读取文件', '天气', 'покажи', 'коммиты', 'README.md'];
const text = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 5 })), { maxLength: 9 }).map((words) => words.join(' '));
const toolArbitrary = fc
  .record({
    name: fc.array(fc.constantFrom('read', 'file', 'get', 'weather', 'git', 'log', 'x'), { minLength: 1, maxLength: 3 }).map((words) => words.join('-')),
    display: text,
    intent: text,
    aliases: fc.array(text, { maxLength: 2 }),
    examples: fc.array(text, { maxLength: 2 }),
    why: text,
    group: fc.option(fc.constantFrom('files', 'git', 'weather'), { nil: undefined }),
    param: fc.option(fc.record({ name: fc.constantFrom('path', 'city', 'amount'), description: text }), { nil: undefined }),
  })
  .map(({ param, group, ...fields }) =>
    makeToolDefinition({
      ...fields,
      ...(group === undefined ? {} : { group }),
      params_schema: param === undefined ? { type: 'object', properties: {} } : { type: 'object', properties: { [param.name]: { type: 'string', description: param.description } } },
    }),
  );

const TERMS = [...new Set(WORDS.flatMap((word) => analyze(word))), 'zzz', 'path', 'city'];
// a term is a word of its own, or one of a word's alternatives (a Chinese word's characters and senses) in turn
const requestArbitrary = fc.array(
  fc.record({ term: fc.constantFrom(...TERMS), weight: fc.constantFrom(1, 0.85, 0.5, 0.3), word: fc.option(fc.nat({ max: 3 }), { nil: undefined }) }),
  { minLength: 1, maxLength: 8 },
);
const parametersArbitrary = fc.record({
  boosts: fc.record({ naming: fc.constantFrom(1, 2.5, 0.3, 0), describing: fc.constantFrom(1, 1.7, 0.01), details: fc.constantFrom(0.75, 1, 0.2) }),
  bm25: fc.record({ k: fc.constantFrom(1.2, 9, 3.3), b: fc.constantFrom(0.7, 0.2, 0, 1), d: fc.constantFrom(0.5, 0.25, 0) }),
  depth: fc.integer({ min: 0, max: 8 }),
  maxTerms: fc.integer({ min: 1, max: 12 }),
  postingsBudget: fc.constantFrom(1, 3, 400),
});

/** One change of a rescan: a tool added, removed, or replaced by another object under the same name. */
type Change = { kind: 'add'; at: number; tool: ToolDefinition } | { kind: 'remove'; at: number } | { kind: 'replace'; at: number; tool: ToolDefinition };
const changeArbitrary: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), tool: toolArbitrary }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), tool: toolArbitrary }),
);

let serial = 0;
function applied(tools: readonly ToolDefinition[], change: Change): ToolDefinition[] {
  const next = [...tools];
  const at = change.at % (tools.length + (change.kind === 'add' ? 1 : 0) || 1);
  if (change.kind === 'add') next.splice(at, 0, { ...change.tool, name: `${change.tool.name}-added${(serial += 1)}` });
  else if (next.length > 0 && change.kind === 'remove') next.splice(at, 1);
  else if (next.length > 0 && change.kind === 'replace') next[at] = { ...change.tool, name: next[at]!.name };
  return next;
}

const named = (tools: ToolDefinition[]): ToolDefinition[] => tools.map((tool, at) => ({ ...tool, name: `${tool.name}-${at}` }));

function expectSameAsMinisearch(index: SearchIndex, tools: readonly ToolDefinition[], requests: WeightedTerm[][], parameters: RankingParameters): void {
  for (const request of requests) {
    expect(firstStage(index, parameters, request)).toEqual(minisearchFirstStage(tools, parameters, request));
  }
}

describe('firstStage', () => {
  describe('when the index is built afresh, restored from its file, or updated in place by rescans', () => {
    it('returns the hits and scores (to the last bit) of minisearch built afresh over the same tools', () => {
      fc.assert(
        fc.property(
          fc.array(toolArbitrary, { maxLength: 7 }),
          fc.array(fc.tuple(changeArbitrary, fc.boolean()), { maxLength: 5 }),
          fc.array(requestArbitrary, { minLength: 1, maxLength: 3 }),
          parametersArbitrary,
          (initial, changes, requests, knobs) => {
            const parameters: RankingParameters = { ...FITTED_RANKING, ...knobs };
            let tools = named(initial);
            let index = buildSearchIndex(tools);
            expectSameAsMinisearch(index, tools, requests, parameters);
            for (const [change, throughFile] of changes) {
              // a server restarted between two rescans goes on from the index it kept on disk
              if (throughFile) index = restoreSearchIndex(structuredClone(storeSearchIndex(index)), tools)!;
              tools = applied(tools, change);
              index = updateSearchIndex(index, tools);
              expectSameAsMinisearch(index, tools, requests, parameters);
            }
          },
        ),
        { numRuns: runs(200) },
      );
    });
  });

  describe('when most tools are removed and the postings are compacted', () => {
    it('still returns minisearch’s hits and scores, before and after more tools are added', () => {
      fc.assert(
        fc.property(fc.array(toolArbitrary, { minLength: 300, maxLength: 300 }), fc.array(toolArbitrary, { maxLength: 5 }), fc.array(requestArbitrary, { minLength: 1, maxLength: 3 }), (many, added, requests) => {
          const parameters: RankingParameters = { ...FITTED_RANKING, depth: 10 };
          const tools = named(many);
          const built = buildSearchIndex(tools);
          const kept = tools.filter((_, at) => at % 11 === 0);
          const compacted = updateSearchIndex(built, kept);
          // the dead slots are gone: each tool's slot is its position again
          expect(compacted.records.map((record) => record.id)).toEqual(kept.map((_, at) => at));
          expectSameAsMinisearch(compacted, kept, requests, parameters);
          const grown = [...kept, ...added.map((tool, at) => ({ ...tool, name: `${tool.name}-new${at}` }))];
          expectSameAsMinisearch(updateSearchIndex(compacted, grown), grown, requests, parameters);
        }),
        { numRuns: runs(5) },
      );
    });

    it('still returns minisearch’s hits and scores when the compacting update also adds and replaces tools anywhere', () => {
      fc.assert(
        fc.property(
          fc.array(toolArbitrary, { minLength: 300, maxLength: 300 }),
          fc.array(fc.tuple(fc.nat(), toolArbitrary), { minLength: 1, maxLength: 6 }),
          fc.array(requestArbitrary, { minLength: 1, maxLength: 3 }),
          (many, added, requests) => {
            const parameters: RankingParameters = { ...FITTED_RANKING, depth: 10 };
            const tools = named(many);
            const built = buildSearchIndex(tools);
            const next = tools.filter((_, at) => at % 11 === 0);
            // a replaced tool is a new object under an old name; an added one comes in at any position
            next[0] = { ...next[0]!, intent: `${next[0]!.intent} replaced` };
            for (const [at, tool] of added) next.splice(at % (next.length + 1), 0, { ...tool, name: `${tool.name}-new${(serial += 1)}` });
            const compacted = updateSearchIndex(built, next);
            expect(compacted.records.map((record) => record.id)).toEqual(next.map((_, at) => at));
            expectSameAsMinisearch(compacted, next, requests, parameters);
            const changed = applied(next, { kind: 'remove', at: 3 });
            expectSameAsMinisearch(updateSearchIndex(compacted, changed), changed, requests, parameters);
          },
        ),
        { numRuns: runs(5) },
      );
    });
  });
});

describe('firstStage term choice', () => {
  describe('when one request word has more rare alternatives than the first stage reads terms', () => {
    // a Chinese word's senses are alternatives: read rarest first, 13 rare readings of one word (each in one tool) filled
    // all 12 terms, and the request's other word, `hotel`, which three tools have, was never read (BFCL translated into
    // Chinese: pooled hit@1 0.250 → 0.458 once each word had its turn)
    const rare = ['pub', 'tavern', 'inn', 'saloon', 'canteen', 'diner', 'bistro', 'brewery', 'cellar', 'winery', 'lounge', 'cafe', 'taproom'];
    const tools = [
      ...rare.map((word) => makeToolDefinition({ name: `visit-${word}`, display: word, intent: `Visit a ${word}`, why: word })),
      ...['book', 'cancel', 'list'].map((verb) => makeToolDefinition({ name: `${verb}-hotel`, display: `${verb} hotel`, intent: `${verb} a hotel room`, why: 'travel' })),
    ];
    const index = buildSearchIndex(tools);
    const term = (word: string): string => analyze(word)[0]!;
    const request: WeightedTerm[] = [...rare.map((word) => ({ term: term(word), weight: 0.5, word: 0 })), { term: term('hotel'), weight: 1, word: 1 }];

    it('returns the tools of the other word too, since each word is read before any word’s second term', () => {
      const found = firstStage(index, { ...FITTED_RANKING, maxTerms: 12, depth: 20 }, request).map((hit) => tools[hit.position]!.name);
      expect(found).toEqual(expect.arrayContaining(['book-hotel', 'cancel-hotel', 'list-hotel']));
    });

    it('returns only the rare readings when each term is a word of its own (rarest first, as for an English request)', () => {
      const words = request.map(({ term, weight }) => ({ term, weight }));
      const found = firstStage(index, { ...FITTED_RANKING, maxTerms: 12, depth: 20 }, words).map((hit) => tools[hit.position]!.name);
      expect(found.filter((name) => name.endsWith('-hotel'))).toEqual([]);
    });
  });
});
