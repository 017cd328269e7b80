import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { analyze, analyzeWords } from '../../src/matcher/analyze.js';
import { SEARCH_FIELDS, toSearchDocument } from '../../src/matcher/search-document.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { restoreSearchIndex, storeSearchIndex } from '../../src/matcher/stored-search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { describeTool, FIELD_BIT, plainRecord, TermDictionary, type IntentWord, type PlainRecord, type ToolRecord } from '../../src/matcher/tool-record.js';
import { valueWords } from '../../src/matcher/value-words.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// The record as it was made before records became term ids in one typed array (maps, sets and strings per tool):
// the compact record must hold exactly this, and answer every question the re-rank asks of it as this would.
function reference(tool: ToolDefinition): PlainRecord {
  const text = toSearchDocument(tool);
  const termFields = new Map<string, number>();
  for (const field of SEARCH_FIELDS) for (const term of analyze(text[field])) termFields.set(term, (termFields.get(term) ?? 0) | FIELD_BIT[field]);
  const sequence = (words: string, values: Set<string> = new Set()): IntentWord[] => analyzeWords(words).map(({ word, terms }) => [terms[0]!, values.has(word)]);
  const distinct = (terms: IntentWord[]): IntentWord[] => {
    const seen = new Set<string>();
    return terms.filter(([term]) => !seen.has(term) && seen.add(term) !== undefined);
  };
  const pairs = (variants: IntentWord[][]): Set<string> => {
    const set = new Set<string>();
    for (const terms of variants) for (let at = 0; at + 1 < terms.length; at++) set.add(`${terms[at]![0]} ${terms[at + 1]![0]}`);
    return set;
  };
  const names = [tool.name, ...(text.display === '' ? [] : [tool.display]), ...tool.aliases];
  const nameTerms = names.map((name) => sequence(name)).filter((terms) => terms.length > 0);
  const spoken = [sequence(tool.intent), ...tool.examples.map((example) => sequence(example, valueWords(example)))].filter((terms) => terms.length > 0);
  return {
    termFields,
    nameVariants: nameTerms.map((terms) => distinct(terms).map(([term]) => term)),
    intentVariants: spoken.map(distinct),
    namePairs: pairs(nameTerms),
    intentPairs: pairs(spoken.map((terms) => terms.filter(([, value]) => !value))),
  };
}

// the re-rank's questions, asked of the plain record as the matcher asked them before
function plainAnswers(plain: PlainRecord, terms: Set<string>, pairs: Set<string>, rarities: Float64Array[]) {
  const shared = (tool: Set<string>): number => [...pairs].filter((pair) => tool.has(pair)).length;
  let intentShare = 0;
  plain.intentVariants.forEach((words, variant) => {
    let total = 0;
    let hits = 0;
    words.forEach(([term, value], word) => {
      total += rarities[variant]![word]!;
      if (!value && terms.has(term)) hits += rarities[variant]![word]!;
    });
    if (total > 0) intentShare = Math.max(intentShare, hits / total);
  });
  return {
    fields: [...terms].map((term) => plain.termFields.get(term)),
    nameShare: Math.max(0, ...plain.nameVariants.map((words) => words.filter((term) => terms.has(term)).length / words.length)),
    nameHead: plain.nameVariants[0]?.[0],
    intentShare,
    intentTerms: plain.intentVariants.map((words) => words.map(([term]) => term)),
    namePairs: [plain.namePairs.size, shared(plain.namePairs)],
    intentPairs: [plain.intentPairs.size, shared(plain.intentPairs)],
  };
}

function recordAnswers(record: ToolRecord, terms: Set<string>, pairs: Set<string>, rarities: Float64Array[]) {
  return {
    fields: [...terms].map((term) => record.fieldsOf(term)),
    nameShare: record.bestNameShare(terms),
    nameHead: record.nameHead(),
    intentShare: record.bestIntentShare(rarities, terms),
    intentTerms: record.intentTerms(),
    namePairs: [record.namePairCount, record.sharedNamePairs(pairs)],
    intentPairs: [record.intentPairCount, record.sharedIntentPairs(pairs)],
  };
}

// words that meet across tools and requests: English (stemmed, stop words), Chinese (characters and pairs), Russian, values
const WORDS = ['read', 'reading', 'file', 'files', 'the', 'weather', 'forecast', 'in', 'Tokyo', 'convert', 'USD', 'EUR', '100', 'x', 'git', 'commit', 'log', 'getWeather', 'calculate_area', '查看', '提交', '记录', '读取文件', '天气', '的', 'покажи', 'коммиты', 'README.md', '"quoted value"'];
const text = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 6 })), { maxLength: 8 }).map((words) => words.join(' '));
const toolArbitrary = fc
  .record({
    name: fc.array(fc.constantFrom('read', 'file', 'get', 'weather', 'git', 'log', 'x'), { minLength: 1, maxLength: 3 }).map((words) => words.join('-')),
    display: text,
    intent: text,
    aliases: fc.array(text, { maxLength: 3 }),
    examples: fc.array(text, { maxLength: 3 }),
    why: text,
    param: fc.option(fc.record({ name: fc.constantFrom('path', 'city', 'amount'), description: text }), { nil: undefined }),
  })
  .map(({ param, ...fields }) =>
    makeToolDefinition({
      ...fields,
      params_schema: param === undefined ? { type: 'object', properties: {} } : { type: 'object', properties: { [param.name]: { type: 'string', description: param.description } } },
    }),
  );
const request = fc.tuple(fc.array(fc.constantFrom(...WORDS.map((word) => analyze(word)[0] ?? word), 'zzz'), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 5 }));

function requestOf(tools: PlainRecord[], [words, picks]: [string[], number[]]): { terms: Set<string>; pairs: Set<string> } {
  // pairs some tool has, and pairs of the request's words
  const known = tools.flatMap((tool) => [...tool.namePairs, ...tool.intentPairs]);
  const pairs = new Set(words.slice(1).map((word, at) => `${words[at]} ${word}`));
  for (const pick of picks) if (known.length > 0) pairs.add(known[pick % known.length]!);
  const terms = new Set(words);
  for (const tool of tools) for (const [term] of [...tool.termFields].slice(0, 2)) terms.add(term);
  return { terms, pairs };
}

describe('compact tool records', () => {
  it('hold exactly what the analysis found, and answer as the maps and sets did, in a shared dictionary and read back from disk', () => {
    fc.assert(
      fc.property(fc.array(toolArbitrary, { minLength: 1, maxLength: 5 }), fc.array(request, { minLength: 1, maxLength: 4 }), (tools, requests) => {
        const named = tools.map((tool, at) => ({ ...tool, name: `${tool.name}-${at}` }));
        const dictionary = new TermDictionary();
        const records = named.map((tool) => describeTool(tool, dictionary).record);
        const index = buildSearchIndex(named);
        const restored = restoreSearchIndex(structuredClone(storeSearchIndex(index)), named)!;
        const plains = named.map(reference);
        named.forEach((_, at) => {
          for (const record of [records[at]!, index.records.at(at)!, restored.records.at(at)!, describeTool(named[at]!).record]) {
            expect(plainRecord(record)).toEqual(plains[at]);
            for (const asked of requests) {
              const { terms, pairs } = requestOf(plains, asked);
              const rarities = plains[at]!.intentVariants.map((words) => Float64Array.from(words, (_, word) => 1 + ((word * 7 + asked[1].length) % 5)));
              expect(recordAnswers(record, terms, pairs, rarities)).toEqual(plainAnswers(plains[at]!, terms, pairs, rarities));
            }
          }
        });
      }),
      { numRuns: runs(150) },
    );
  });

  it('keep the term counts of a rescanned index equal to those of one built afresh, as minisearch had them', () => {
    fc.assert(
      fc.property(fc.array(toolArbitrary, { minLength: 1, maxLength: 6 }), fc.array(toolArbitrary, { maxLength: 3 }), fc.nat(), (tools, added, cut) => {
        const named = tools.map((tool, at) => ({ ...tool, name: `${tool.name}-${at}` }));
        const built = buildSearchIndex(named);
        const kept = named.filter((_, at) => at % 2 === cut % 2);
        const next = [...kept, ...added.map((tool, at) => ({ ...tool, name: `${tool.name}-new${at}` }))];
        const updated = updateSearchIndex(restoreSearchIndex(storeSearchIndex(built), named)!, next);
        const fresh = buildSearchIndex(next);
        const allTerms = new Set([...named, ...next].flatMap((tool) => [...reference(tool).termFields.keys()]));
        for (const term of [...allTerms, 'zzz']) {
          expect([term, updated.documentFrequency.has(term), updated.documentFrequency.get(term)]).toEqual([term, fresh.documentFrequency.has(term), fresh.documentFrequency.get(term)]);
        }
      }),
      { numRuns: runs(100) },
    );
  });
});
