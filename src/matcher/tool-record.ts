import type { ToolDefinition } from '../core/index.js';
import { analyze, analyzeWords } from './analyze.js';
import { SEARCH_FIELDS, toSearchDocument, type SearchDocument, type SearchField } from './search-document.js';
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

/** A word of a tool's intent or example: its first term, and whether the example gives it as a value. */
export type IntentWord = [term: string, value: boolean];

/**
 * What the re-rank knows of one tool, analysed once. It depends on the tool alone, so an index
 * version that keeps the very same `ToolDefinition` object keeps its record.
 */
export interface ToolRecord {
  tool: ToolDefinition;
  /** the tool's id in the minisearch index: unique among all records ever made */
  id: number;
  /** each of its terms and the fields (bit mask) it occurs in */
  termFields: Map<string, number>;
  /** the distinct terms of each of its names (name, display name, aliases), in order */
  nameVariants: string[][];
  /** the distinct words of each way it says what it does (intent, examples), in order */
  intentVariants: IntentWord[][];
  /** adjacent term pairs (`a b`) of its names, and of its intent and examples */
  namePairs: Set<string>;
  intentPairs: Set<string>;
}

/** A tool as minisearch indexes it: per field, its analysed terms joined by spaces (terms never hold one). */
export type IndexedDocument = { id: number } & Record<SearchField, string>;

let nextId = 0;

/** Keeps ids below `next` from being given again: records restored from disk hold them. */
export function reserveRecordIds(next: number): void {
  nextId = Math.max(nextId, next);
}

/** Analyses a tool: its record for the re-rank and its document for minisearch. */
export function describeTool(tool: ToolDefinition): { record: ToolRecord; document: IndexedDocument } {
  const id = nextId;
  nextId += 1;
  const text = toSearchDocument(tool);
  const { document, termFields } = analyseFields(text, id);
  return { record: { tool, id, termFields, ...namesAndIntents(tool, text) }, document };
}

/** The document minisearch indexed for a record, analysed again (minisearch needs it to remove the tool). */
export function indexedDocument(record: ToolRecord): IndexedDocument {
  return analyseFields(toSearchDocument(record.tool), record.id).document;
}

function analyseFields(text: SearchDocument, id: number): { document: IndexedDocument; termFields: Map<string, number> } {
  const document = { id } as IndexedDocument;
  const termFields = new Map<string, number>();
  for (const field of SEARCH_FIELDS) {
    const terms = analyze(text[field]);
    for (const term of terms) termFields.set(term, (termFields.get(term) ?? 0) | FIELD_BIT[field]);
    document[field] = terms.join(' ');
  }
  return { document, termFields };
}

// An alias is another name and an example another intent: each is compared with the request whole.
function namesAndIntents(
  tool: ToolDefinition,
  text: SearchDocument,
): Pick<ToolRecord, 'nameVariants' | 'intentVariants' | 'namePairs' | 'intentPairs'> {
  const names = [tool.name, ...(text.display === '' ? [] : [tool.display]), ...tool.aliases];
  const nameTerms = names.map((name) => termSequence(name)).filter((terms) => terms.length > 0);
  const examples = tool.examples.map((example) => termSequence(example, valueWords(example)));
  const spoken = [termSequence(tool.intent), ...examples].filter((terms) => terms.length > 0);
  return {
    nameVariants: nameTerms.map((terms) => distinct(terms).map(([term]) => term)),
    intentVariants: spoken.map(distinct),
    namePairs: adjacentPairs(nameTerms),
    intentPairs: adjacentPairs(spoken.map((terms) => terms.filter(([, value]) => !value))),
  };
}

// An example is a request: the values it gives (a file name, a place) say what it was asked of, not
// what the tool does, so they are marked and never count as the request mirroring the example.
function termSequence(text: string, values: Set<string> = new Set()): IntentWord[] {
  return analyzeWords(text).map(({ word, terms }) => [terms[0]!, values.has(word)]);
}

function distinct(terms: IntentWord[]): IntentWord[] {
  const seen = new Set<string>();
  return terms.filter(([term]) => !seen.has(term) && seen.add(term) !== undefined);
}

function adjacentPairs(variants: IntentWord[][]): Set<string> {
  const pairs = new Set<string>();
  for (const terms of variants) {
    for (let index = 0; index + 1 < terms.length; index += 1) pairs.add(`${terms[index]![0]} ${terms[index + 1]![0]}`);
  }
  return pairs;
}
