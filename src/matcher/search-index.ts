import MiniSearch from 'minisearch';
import type { ToolDefinition } from '../core/index.js';
import { analyze } from './analyze.js';
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
  /** per tool: the distinct terms of its name */
  nameTerms: string[][];
  /** per tool: the distinct terms of its intent */
  intentTerms: string[][];
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
  const nameTerms: string[][] = [];
  const intentTerms: string[][] = [];
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
        if (field === 'name') nameTerms.push([...new Set(terms)]);
        if (field === 'intent') intentTerms.push([...new Set(terms)]);
      }
      analysed[group] = groupTerms.join(' ');
    }
    for (const term of fields.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    termFields.push(fields);
    return analysed;
  });
  minisearch.addAll(documents);
  return { tools, minisearch, termFields, nameTerms, intentTerms, documentFrequency };
}

/** Inverse document frequency of a term in this index (BM25's form); a term no tool uses counts as the rarest. */
export function inverseDocumentFrequency(index: SearchIndex, term: string): number {
  const count = index.tools.length;
  const frequency = Math.max(1, index.documentFrequency.get(term) ?? 0);
  return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
}
