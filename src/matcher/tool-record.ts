import type { ToolDefinition } from '../core/index.js';
import { analyze, analyzeWords } from './analyze.js';
import { largest } from './narrow-array.js';
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

/**
 * A record's numbers: 16 bits each while every one fits (a dictionary of under 32,768 terms, as most registries'),
 * else 32 (issue #18: at 100,000 tools the records' numbers were 79 MB of 32-bit integers).
 */
export type RecordNumbers = Uint16Array | Int32Array;

/** A word of a tool's intent or example: its first term, and whether the example gives it as a value. */
export type IntentWord = [term: string, value: boolean];

/**
 * Each distinct term of a search engine's tools as a number, given once: records hold numbers, not a string per
 * term per tool (at 100,000 tools the strings, maps and sets of the records took more memory than minisearch).
 * Terms are never taken back (a rescan's removed tools leave theirs): the dictionary grows with the words a
 * registry has ever used, not with its tools.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  readonly terms: string[];

  constructor(terms: string[] = []) {
    this.terms = terms;
    terms.forEach((term, id) => this.ids.set(term, id));
  }

  /** A dictionary of `terms` (each at its index), its map made a slice at a time: 300,000 terms took ~0.5 s at load 10 */
  static *restoringSteps(terms: string[]): Generator<void, TermDictionary, void> {
    const dictionary = new TermDictionary();
    for (let id = 0; id < terms.length; id++) {
      if (id % DICTIONARY_STEP === DICTIONARY_STEP - 1) yield;
      dictionary.terms.push(terms[id]!);
      dictionary.ids.set(terms[id]!, id);
    }
    return dictionary;
  }

  /** the term's id, if any record has it */
  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.ids.set(term, id);
    }
    return id;
  }
}

// terms put in a restored dictionary's map between two stops
const DICTIONARY_STEP = 16_384;

// The layout of a record's numbers: a header of where each part starts, then
// - its distinct terms' ids, ascending, then the field mask of each (as many again);
// - its names: how many, then for each its length and its distinct terms' ids, in order;
// - its intents and examples: the same, each word as `id * 2 + (1 if given as a value)`;
// - the adjacent term pairs of its names, then of its intents and examples: how many, then each as two ids, ascending.
const TERMS = 0;
const NAMES = 1;
const INTENTS = 2;
const NAME_PAIRS = 3;
const INTENT_PAIRS = 4;
const HEADER = 5;

/**
 * What the re-rank knows of one tool, analysed once, as term ids in one typed array (its layout above). It depends
 * on the tool alone, so an index version that keeps the very same `ToolDefinition` object keeps its record. It does
 * not hold the tool (issue #18: at 100,000 tools the records held every definition, ~170 MB): its index version
 * reaches the tool by position.
 */
export class ToolRecord {
  constructor(
    /** the tool's slot in its search engine's postings (0 for a record measured on its own) */
    readonly id: number,
    /** the numbers: see the layout above */
    readonly data: RecordNumbers,
    readonly dictionary: TermDictionary,
  ) {}

  /** the fields (bit mask) the term occurs in, undefined where the tool does not have it */
  fieldsOf(term: string): number | undefined {
    const id = this.dictionary.idOf(term);
    if (id === undefined) return undefined;
    const data = this.data;
    const count = data[TERMS]!;
    let low = HEADER;
    let high = HEADER + count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = data[middle]!;
      if (found === id) return data[middle + count];
      if (found < id) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** ids of its distinct terms (those the postings hold), ascending */
  termIds(): RecordNumbers {
    return this.data.subarray(HEADER, HEADER + this.data[TERMS]!);
  }

  /** the fields (bit mask) of each of its distinct terms, in the order of `termIds` */
  termFieldMasks(): RecordNumbers {
    const count = this.data[TERMS]!;
    return this.data.subarray(HEADER + count, HEADER + 2 * count);
  }

  /** the share of the words of its name (or of the alias) the set holds most of */
  bestNameShare(terms: ReadonlySet<string>): number {
    const { data, dictionary } = this;
    let best = 0;
    let at = data[NAMES]!;
    const variants = data[at++]!;
    for (let variant = 0; variant < variants; variant++) {
      const length = data[at++]!;
      let hits = 0;
      for (let word = 0; word < length; word++) if (terms.has(dictionary.terms[data[at + word]!]!)) hits += 1;
      at += length;
      best = Math.max(best, hits / length);
    }
    return best;
  }

  /** the first term of its name (most often its verb) */
  nameHead(): string | undefined {
    const at = this.data[NAMES]!;
    return this.data[at] === 0 ? undefined : this.dictionary.terms[this.data[at + 2]!];
  }

  /**
   * The share of the words of its intent (or the example) the set holds most of, each word weighted by its rarity
   * (`rarities`: per intent or example, per word, as `intentTerms` gives them); a word given as a value never counts.
   */
  bestIntentShare(rarities: readonly Float64Array[], terms: ReadonlySet<string>): number {
    const { data, dictionary } = this;
    let best = 0;
    let at = data[INTENTS]!;
    const variants = data[at++]!;
    for (let variant = 0; variant < variants; variant++) {
      const length = data[at++]!;
      const rarity = rarities[variant]!;
      let total = 0;
      let hits = 0;
      for (let word = 0; word < length; word++) {
        const coded = data[at + word]!;
        total += rarity[word]!;
        if ((coded & 1) === 0 && terms.has(dictionary.terms[coded >>> 1]!)) hits += rarity[word]!;
      }
      at += length;
      if (total > 0) best = Math.max(best, hits / total);
    }
    return best;
  }

  /** the terms of each of its intents and examples, in order, as `bestIntentShare` reads them */
  intentTerms(): string[][] {
    const { data, dictionary } = this;
    const variants: string[][] = [];
    let at = data[INTENTS]!;
    const count = data[at++]!;
    for (let variant = 0; variant < count; variant++) {
      const length = data[at++]!;
      variants.push(Array.from(data.subarray(at, at + length), (coded) => dictionary.terms[coded >>> 1]!));
      at += length;
    }
    return variants;
  }

  /** how many distinct adjacent term pairs its names have */
  get namePairCount(): number {
    return this.data[this.data[NAME_PAIRS]!]!;
  }

  /** how many distinct adjacent term pairs its intents and examples have */
  get intentPairCount(): number {
    return this.data[this.data[INTENT_PAIRS]!]!;
  }

  /** how many of the pairs (`a b`) its names have side by side too */
  sharedNamePairs(pairs: ReadonlySet<string>): number {
    return this.sharedPairs(this.data[NAME_PAIRS]!, pairs);
  }

  /** how many of the pairs (`a b`) its intents and examples have side by side too */
  sharedIntentPairs(pairs: ReadonlySet<string>): number {
    return this.sharedPairs(this.data[INTENT_PAIRS]!, pairs);
  }

  private sharedPairs(at: number, pairs: ReadonlySet<string>): number {
    const data = this.data;
    const count = data[at]!;
    if (count === 0) return 0;
    const ids = pairIds(pairs, this.dictionary);
    let hits = 0;
    for (let pair = 0; pair < ids.length; pair += 2) {
      const first = ids[pair]!;
      const second = ids[pair + 1]!;
      let low = 0;
      let high = count - 1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        const a = data[at + 1 + 2 * middle]!;
        const b = data[at + 2 + 2 * middle]!;
        if (a === first && b === second) {
          hits += 1;
          break;
        }
        if (a < first || (a === first && b < second)) low = middle + 1;
        else high = middle - 1;
      }
    }
    return hits;
  }
}

// A request is measured against some twenty records in a row, twice each: resolving its pairs per record cut two
// strings out of each pair every time (a fifth of what a first pass allocated, issue #18). So the pairs known to a
// dictionary are resolved once, and kept while the same request is measured with the same dictionary, which has
// not grown meanwhile. A request's pairs are a set made for it and never changed after (`readRequest`), so its
// identity names its contents.
let resolved: { pairs: ReadonlySet<string>; dictionary: TermDictionary; terms: number; ids: Int32Array } | undefined;

/** The pairs (`a b`) whose two terms `dictionary` has, as ids: first, second, first, second…, in the set's order. */
function pairIds(pairs: ReadonlySet<string>, dictionary: TermDictionary): Int32Array {
  if (resolved?.pairs === pairs && resolved.dictionary === dictionary && resolved.terms === dictionary.terms.length) return resolved.ids;
  const known: number[] = [];
  for (const pair of pairs) {
    const space = pair.indexOf(' ');
    const first = dictionary.idOf(pair.slice(0, space));
    const second = first === undefined ? undefined : dictionary.idOf(pair.slice(space + 1));
    if (first !== undefined && second !== undefined) known.push(first, second);
  }
  resolved = { pairs, dictionary, terms: dictionary.terms.length, ids: Int32Array.from(known) };
  return resolved.ids;
}

/** A tool as the postings index it (and minisearch did): per field, its analysed terms joined by spaces (terms never hold one). */
export type IndexedDocument = { id: number } & Record<SearchField, string>;

/**
 * Analyses a tool: its record for the re-rank (its terms given ids in `dictionary`, the engine's; a record
 * measured on its own may have one of its own), under its slot in the engine's postings, and its document for them.
 */
export function describeTool(tool: ToolDefinition, dictionary = new TermDictionary(), slot = 0): { record: ToolRecord; document: IndexedDocument } {
  const text = toSearchDocument(tool);
  const { document, termFields } = analyseFields(text, slot);
  return { record: new ToolRecord(slot, encode(dictionary, termFields, namesAndIntents(tool, text)), dictionary), document };
}

/** A record as plain maps, sets and strings: what it holds, for tests and for reading. */
export interface PlainRecord {
  termFields: Map<string, number>;
  nameVariants: string[][];
  intentVariants: IntentWord[][];
  namePairs: Set<string>;
  intentPairs: Set<string>;
}

/** The record's numbers read back as terms (tests compare it with the analysis it was made from). */
export function plainRecord(record: ToolRecord): PlainRecord {
  const { data, dictionary } = record;
  const term = (id: number): string => dictionary.terms[id]!;
  const termFields = new Map<string, number>();
  const count = data[TERMS]!;
  for (let at = HEADER; at < HEADER + count; at++) termFields.set(term(data[at]!), data[at + count]!);
  const variants = <T>(start: number, read: (coded: number) => T): T[][] => {
    const list: T[][] = [];
    let at = start;
    const total = data[at++]!;
    for (let variant = 0; variant < total; variant++) {
      const length = data[at++]!;
      list.push(Array.from(data.subarray(at, at + length), read));
      at += length;
    }
    return list;
  };
  const pairs = (at: number): Set<string> => {
    const set = new Set<string>();
    for (let pair = 0; pair < data[at]!; pair++) set.add(`${term(data[at + 1 + 2 * pair]!)} ${term(data[at + 2 + 2 * pair]!)}`);
    return set;
  };
  return {
    termFields,
    nameVariants: variants(data[NAMES]!, term),
    intentVariants: variants(data[INTENTS]!, (coded): IntentWord => [term(coded >>> 1), (coded & 1) === 1]),
    namePairs: pairs(data[NAME_PAIRS]!),
    intentPairs: pairs(data[INTENT_PAIRS]!),
  };
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

interface NamesAndIntents {
  /** the distinct terms of each of its names (name, display name, aliases), in order */
  nameVariants: string[][];
  /** the distinct words of each way it says what it does (intent, examples), in order */
  intentVariants: IntentWord[][];
  /** adjacent term pairs of its names, and of its intent and examples */
  namePairs: Array<[string, string]>;
  intentPairs: Array<[string, string]>;
}

// An alias is another name and an example another intent: each is compared with the request whole.
function namesAndIntents(tool: ToolDefinition, text: SearchDocument): NamesAndIntents {
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

function adjacentPairs(variants: IntentWord[][]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const terms of variants) {
    for (let index = 0; index + 1 < terms.length; index += 1) pairs.push([terms[index]![0], terms[index + 1]![0]]);
  }
  return pairs;
}

function encode(dictionary: TermDictionary, termFields: Map<string, number>, parts: NamesAndIntents): RecordNumbers {
  const numbers: number[] = [0, 0, 0, 0, 0];
  const terms = [...termFields].map(([term, mask]): [number, number] => [dictionary.intern(term), mask]).sort((a, b) => a[0] - b[0]);
  numbers[TERMS] = terms.length;
  for (const [id] of terms) numbers.push(id);
  for (const [, mask] of terms) numbers.push(mask);
  numbers[NAMES] = numbers.length;
  numbers.push(parts.nameVariants.length);
  for (const variant of parts.nameVariants) numbers.push(variant.length, ...variant.map((term) => dictionary.intern(term)));
  numbers[INTENTS] = numbers.length;
  numbers.push(parts.intentVariants.length);
  for (const variant of parts.intentVariants) numbers.push(variant.length, ...variant.map(([term, value]) => dictionary.intern(term) * 2 + (value ? 1 : 0)));
  for (const [part, pairs] of [[NAME_PAIRS, parts.namePairs], [INTENT_PAIRS, parts.intentPairs]] as const) {
    numbers[part] = numbers.length;
    const ids = pairs.map(([a, b]): [number, number] => [dictionary.intern(a), dictionary.intern(b)]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const unique = ids.filter((pair, at) => at === 0 || pair[0] !== ids[at - 1]![0] || pair[1] !== ids[at - 1]![1]);
    numbers.push(unique.length);
    for (const [a, b] of unique) numbers.push(a, b);
  }
  return largest(numbers) <= 0xffff ? Uint16Array.from(numbers) : Int32Array.from(numbers);
}
