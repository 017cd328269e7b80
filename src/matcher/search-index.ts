import type { ToolDefinition } from '../core/index.js';
import { analyze, analyzeWords } from './analyze.js';
import {
  FIELD_GROUPS,
  SEARCH_FIELDS,
  toSearchDocument,
  type FieldGroup,
  type SearchDocument,
  type SearchField,
} from './search-document.js';
import { valueWords } from './value-words.js';

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

/** The field groups in the order their term frequencies are stored. */
export const GROUPS = Object.keys(FIELD_GROUPS) as FieldGroup[];

/** The tools a term occurs in, and how often in each field group (`GROUPS.length` numbers per tool). */
export interface Postings {
  tools: Int32Array;
  frequencies: Float32Array;
}

/** A term of an intent or example, its rarity, and whether the example gives it as a value. */
export type IntentTerm = [term: string, weight: number, value: boolean];

type IntentWords = Array<[term: string, value: boolean]>;

/** The search structures built once per index: BM25F postings plus per-tool term statistics for the re-rank. */
export interface SearchIndex {
  tools: readonly ToolDefinition[];
  postings: Map<string, Postings>;
  /** per tool and field group, the number of terms (`GROUPS.length` numbers per tool) */
  groupLengths: Float32Array;
  /** per field group, the average number of terms over the tools */
  averageLengths: number[];
  /** per tool: each of its terms and the fields (bit mask) it occurs in */
  termFields: Array<Map<string, number>>;
  /** per tool: the distinct terms of each of its names (name, display name, aliases), in order */
  nameVariants: string[][][];
  /** per tool: the distinct terms of each way it says what it does (intent, examples), with their rarity */
  intentVariants: IntentTerm[][][];
  /** per tool: adjacent term pairs (`a b`) of its names and of its intent and examples */
  namePairs: Array<Set<string>>;
  intentPairs: Array<Set<string>>;
  /** in how many tools each term occurs */
  documentFrequency: Map<string, number>;
}

/** Analyses every tool once and builds the search structures. */
export function buildSearchIndex(tools: readonly ToolDefinition[]): SearchIndex {
  const width = GROUPS.length;
  const lists = new Map<string, number[]>();
  const groupLengths = new Float32Array(tools.length * width);
  const index: SearchIndex = {
    tools,
    postings: new Map(),
    groupLengths,
    averageLengths: new Array<number>(width).fill(0),
    termFields: [],
    nameVariants: [],
    intentVariants: [],
    namePairs: [],
    intentPairs: [],
    documentFrequency: new Map(),
  };
  const intentWords: IntentWords[][] = [];
  tools.forEach((tool, position) => {
    const document = toSearchDocument(tool, position);
    const lengths = groupLengths.subarray(position * width, (position + 1) * width);
    const counts = countTerms(document, lengths, index.termFields);
    for (const [term, count] of counts) {
      let list = lists.get(term);
      if (list === undefined) lists.set(term, (list = []));
      list.push(position, ...count);
    }
    intentWords.push(describeTool(index, tool, document));
  });
  for (const [term, list] of lists) index.postings.set(term, toPostings(list, width));
  for (const [term, postings] of index.postings) index.documentFrequency.set(term, postings.tools.length);
  for (let slot = 0; slot < width; slot += 1) {
    let total = 0;
    for (let position = 0; position < tools.length; position += 1) total += groupLengths[position * width + slot]!;
    index.averageLengths[slot] = tools.length > 0 ? Math.max(1, total / tools.length) : 1;
  }
  // rarity is known only once every tool is read
  const withRarity = (terms: IntentWords): IntentTerm[] =>
    terms.map(([term, value]) => [term, inverseDocumentFrequency(index, term), value]);
  index.intentVariants = intentWords.map((variants) => variants.map(withRarity));
  return index;
}

/** Inverse document frequency of a term in this index (BM25's form); a term no tool uses counts as the rarest. */
export function inverseDocumentFrequency(index: SearchIndex, term: string): number {
  const count = index.tools.length;
  const frequency = Math.max(1, index.documentFrequency.get(term) ?? 0);
  return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
}

// Records the tool's names and the adjacent term pairs of its names and intents; returns the terms
// of its intent and of each example. An alias is another name and an example another intent: each
// is compared with the request whole.
function describeTool(index: SearchIndex, tool: ToolDefinition, document: SearchDocument): IntentWords[] {
  const names = [tool.name, ...(document.display === '' ? [] : [tool.display]), ...tool.aliases];
  const nameTerms = names.map((name) => termSequence(name)).filter((terms) => terms.length > 0);
  const examples = tool.examples.map((example) => termSequence(example, valueWords(example)));
  const intents = [termSequence(tool.intent), ...examples];
  const spoken = intents.filter((terms) => terms.length > 0);
  index.nameVariants.push(nameTerms.map((terms) => distinct(terms).map(([term]) => term)));
  index.namePairs.push(adjacentPairs(nameTerms));
  index.intentPairs.push(adjacentPairs(spoken.map((terms) => terms.filter(([, value]) => !value))));
  return spoken.map(distinct);
}

// the terms of each field group's fields, counted; each term's fields are recorded in `termFields`
function countTerms(
  document: SearchDocument,
  lengths: Float32Array,
  termFields: Array<Map<string, number>>,
): Map<string, Float32Array> {
  const fields = new Map<string, number>();
  const counts = new Map<string, Float32Array>();
  GROUPS.forEach((group, slot) => {
    for (const field of FIELD_GROUPS[group] as readonly SearchField[]) {
      const terms = analyze(document[field]);
      lengths[slot]! += terms.length;
      for (const term of terms) {
        fields.set(term, (fields.get(term) ?? 0) | FIELD_BIT[field]);
        let count = counts.get(term);
        if (count === undefined) counts.set(term, (count = new Float32Array(GROUPS.length)));
        count[slot]! += 1;
      }
    }
  });
  termFields.push(fields);
  return counts;
}

// An example is a request: the values it gives (a file name, a place) say what it was asked of, not
// what the tool does, so they are marked and never count as the request mirroring the example.
function termSequence(text: string, values: Set<string> = new Set()): IntentWords {
  return analyzeWords(text).map(({ word, terms }) => [terms[0]!, values.has(word)]);
}

function distinct(terms: IntentWords): IntentWords {
  const seen = new Set<string>();
  return terms.filter(([term]) => !seen.has(term) && seen.add(term) !== undefined);
}

function adjacentPairs(variants: IntentWords[]): Set<string> {
  const pairs = new Set<string>();
  for (const terms of variants) {
    for (let index = 0; index + 1 < terms.length; index += 1) pairs.add(`${terms[index]![0]} ${terms[index + 1]![0]}`);
  }
  return pairs;
}

function toPostings(list: number[], width: number): Postings {
  const count = list.length / (width + 1);
  const tools = new Int32Array(count);
  const frequencies = new Float32Array(count * width);
  for (let entry = 0; entry < count; entry += 1) {
    tools[entry] = list[entry * (width + 1)]!;
    for (let slot = 0; slot < width; slot += 1) {
      frequencies[entry * width + slot] = list[entry * (width + 1) + 1 + slot]!;
    }
  }
  return { tools, frequencies };
}
