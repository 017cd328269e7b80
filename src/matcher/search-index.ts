import MiniSearch from 'minisearch';
import type { ToolDefinition } from '../core/index.js';
import { analyze, analyzeWords } from './analyze.js';
import { FIELD_GROUPS, SEARCH_FIELDS, toSearchDocument, type FieldGroup, type SearchField } from './search-document.js';

/** Bit of a field in a term's field mask. */
export const FIELD_BIT: Record<SearchField, number> = Object.fromEntries(
  SEARCH_FIELDS.map((field, index) => [field, 1 << index]),
) as Record<SearchField, number>;

/** The fields that name a tool. */
export const NAMING_FIELDS = FIELD_BIT.name | FIELD_BIT.display | FIELD_BIT.aliases;
/** The fields that say what a tool does. */
export const DESCRIBING_FIELDS = FIELD_BIT.intent | FIELD_BIT.examples;
/** The fields that describe a tool's parameters. */
export const PARAM_FIELDS = FIELD_BIT.param_names | FIELD_BIT.param_text;

/** The search structures built once per index: minisearch plus per-tool term statistics for the re-rank. */
export interface SearchIndex {
  tools: readonly ToolDefinition[];
  minisearch: MiniSearch<AnalyzedDocument>;
  /** per tool: each of its terms and the fields (bit mask) it occurs in */
  termFields: Array<Map<string, number>>;
  /** per tool: the distinct terms of each of its names (name, display name, aliases) */
  nameVariants: string[][][];
  /** per tool: the distinct terms of each way it says what it does (intent, examples), with their rarity */
  intentVariants: Array<Array<Array<[term: string, weight: number]>>>;
  /** in how many tools each term occurs */
  documentFrequency: Map<string, number>;
}

type AnalyzedDocument = { id: number } & Record<FieldGroup, string>;

// terms never contain spaces, so analysed fields travel through minisearch as space-joined text
const splitTerms = (text: string): string[] => (text.length === 0 ? [] : text.split(' '));
const sameTerm = (term: string): string => term;

/** Analyses every tool once and builds the search structures. */
export function buildSearchIndex(tools: readonly ToolDefinition[]): SearchIndex {
  const minisearch = new MiniSearch<AnalyzedDocument>({
    fields: Object.keys(FIELD_GROUPS),
    tokenize: splitTerms,
    processTerm: sameTerm,
    searchOptions: { tokenize: splitTerms, processTerm: sameTerm },
  });
  const termFields: Array<Map<string, number>> = [];
  const nameVariants: string[][][] = [];
  const intentWords: string[][][] = [];
  const documentFrequency = new Map<string, number>();
  const documents: AnalyzedDocument[] = tools.map((tool, id) => {
    const document = toSearchDocument(tool, id);
    const analysed = { id } as AnalyzedDocument;
    const fields = new Map<string, number>();
    for (const [group, members] of Object.entries(FIELD_GROUPS) as Array<[FieldGroup, readonly SearchField[]]>) {
      const groupTerms: string[] = [];
      for (const field of members) {
        const terms = analyze(document[field]);
        groupTerms.push(...terms);
        for (const term of terms) fields.set(term, (fields.get(term) ?? 0) | FIELD_BIT[field]);
      }
      analysed[group] = groupTerms.join(' ');
    }
    for (const term of fields.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    termFields.push(fields);
    // an alias is another name and an example another intent: each is compared with the request whole
    const distinct = (text: string): string[] => [...new Set(analyzeWords(text).map((word) => word.terms[0]!))];
    const names = [tool.name, ...(document.display === '' ? [] : [tool.display]), ...tool.aliases];
    nameVariants.push(names.map(distinct).filter((terms) => terms.length > 0));
    intentWords.push([tool.intent, ...tool.examples].map(distinct).filter((terms) => terms.length > 0));
    return analysed;
  });
  minisearch.addAll(documents);
  const index: SearchIndex = { tools, minisearch, termFields, nameVariants, intentVariants: [], documentFrequency };
  // rarity is known only once every tool is read
  const withRarity = (terms: string[]): Array<[string, number]> =>
    terms.map((term) => [term, inverseDocumentFrequency(index, term)]);
  index.intentVariants = intentWords.map((variants) => variants.map(withRarity));
  return index;
}

/** Inverse document frequency of a term in this index (BM25's form); a term no tool uses counts as the rarest. */
export function inverseDocumentFrequency(index: SearchIndex, term: string): number {
  const count = index.tools.length;
  const frequency = Math.max(1, index.documentFrequency.get(term) ?? 0);
  return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
}
