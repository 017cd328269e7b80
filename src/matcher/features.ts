import type { QueryWord } from './request-words.js';
import { SEARCH_FIELDS, type SearchField } from './search-document.js';
import { inverseDocumentFrequency, type SearchIndex } from './search-index.js';
import { DESCRIBING_FIELDS, FIELD_BIT, NAMING_FIELDS, PARAM_FIELDS, type ToolRecord } from './tool-record.js';

/** What the re-rank and the decision know about one tool for one request. */
export interface ToolFeatures {
  /** first-stage score relative to the best one, 0..1 */
  stage1: number;
  /** share of the request's words (weighted by rarity) found anywhere in the tool's text */
  coverage: number;
  /**
   * share of the request's words found anywhere in the tool's text, each word counting one whatever its rarity: the
   * rarity weights of `coverage` come from this registry's own counts, so one rare word (a name, a word a single tool
   * happens to have) can outweigh the rest of the request; this says how much of what was asked the tool has at all
   */
  plainCoverage: number;
  /**
   * `coverage` of the request's words but the values it gives (a file name, a quoted text, a code): how much of what
   * the request asks for, by rarity, the tool has (0 when it gives only values). `tally the rows of notes.txt` covered by a notes tool through the
   * file's name is not a notes request (userZ7 F6); whether an answer may be `high` reads this (`strongMatch`)
   */
  contentCoverage: number;
  /** the same, in its name, display name or aliases */
  namingCoverage: number;
  /** the same, in its intent or examples */
  describingCoverage: number;
  /** the same, in its parameter names and descriptions */
  paramCoverage: number;
  /** share of the words of the tool's name (or of one alias) the request contains */
  nameShare: number;
  /** share of the words of the tool's intent (or of one example), weighted by rarity, the request contains */
  intentShare: number;
  /** share of the adjacent word pairs of the tool's names that the request has side by side too */
  namePhrase: number;
  /** share of the request's adjacent word pairs that the tool's intent or examples have side by side too */
  intentPhrase: number;
  /** whether the request contains the first word of the tool's name (most often its verb) */
  nameHead: number;
  /** share of the request's words that no tool of the index has (the same for every tool) */
  unknownShare: number;
  /** share of the request's words given as values: quoted, names, codes (the same for every tool) */
  valueShare: number;
  /** request words found in the tool's text (a word found only in part counts as that part) */
  matchedWords: number;
  /** content words in the request */
  queryWords: number;
  /**
   * Whether any part of the request is this tool's business: the request's content words found
   * whole (an ideographic word: mostly, by its character pairs) in the tool's name, display name,
   * aliases, intent or examples, one each, or only among its parameters, a half. Neither a share of
   * the request (a long request is not the weaker for its other words) nor weighted by rarity (a
   * word every tool of a weather registry has still says the request is about weather).
   */
  evidence: number;
}

/** The request as the re-rank compares it with tools: its words, their terms, and its adjacent term pairs. */
export interface RequestTerms {
  words: QueryWord[];
  terms: Set<string>;
  pairs: Set<string>;
  unknownShare: number;
  valueShare: number;
  /** whether the request is in another language than English (its words mostly another script's, or another language's function words) */
  foreign: boolean;
}

/** Measures how well one tool's text and the request cover each other. */
export function measure(index: SearchIndex, position: number, request: RequestTerms, stage1: number): ToolFeatures {
  return measureRecord(index, index.records.at(position)!, intentRarity(index, position), request, stage1);
}

/**
 * The same for a record that need not be the index's own (the calibration measures a tool without
 * one of its examples), with the rarity of each word of each of its intents and examples.
 */
export function measureRecord(
  index: SearchIndex,
  record: ToolRecord,
  rarities: Float64Array[],
  request: RequestTerms,
  stage1: number,
): ToolFeatures {
  const { words, terms, pairs } = request;
  let total = 0;
  let covered = 0;
  let content = 0;
  let contentTotal = 0;
  let named = 0;
  let described = 0;
  let parameters = 0;
  let matchedWords = 0;
  let evidence = 0;
  for (const word of words) {
    total += word.weight;
    // what the request asks for: not the values it gives, nor when it asks it for
    const asked = !word.value && !word.when;
    if (asked) contentTotal += word.weight;
    // a word found whole, the common case, is read without the object `wordMatch` makes: garbage on every request,
    // as the first pass after a start runs this code before the compiler can leave the object out (issue #18)
    let share = 1;
    let whole = 1;
    let mask = record.fieldsOf(word.terms[0]!);
    if (mask === undefined) ({ share, mask, whole } = partialMatch(record, word));
    if (share === 0 && word.relatives.length > 0) ({ share, mask, whole } = relativesMatch(record, word.relatives));
    if (share === 0) continue;
    const weight = word.weight * share;
    matchedWords += share;
    evidence += wordEvidence(word, mask, whole);
    covered += weight;
    // a lone Chinese or Japanese character says little on its own (as for evidence): 查 of 查一下汇率 is not a quarter of
    // the request's content, let alone half
    if (asked) content += SINGLE_IDEOGRAPH.test(word.word) ? weight * 0.25 : weight;
    if (mask & NAMING_FIELDS) named += weight;
    if (mask & DESCRIBING_FIELDS) described += weight;
    if (mask & PARAM_FIELDS) parameters += weight;
  }
  const scale = total > 0 ? 1 / total : 0;
  const head = record.nameHead();
  return {
    stage1,
    coverage: covered * scale,
    plainCoverage: words.length === 0 ? 0 : matchedWords / words.length,
    contentCoverage: contentTotal > 0 ? content / contentTotal : 0,
    namingCoverage: named * scale,
    describingCoverage: described * scale,
    paramCoverage: parameters * scale,
    nameShare: record.bestNameShare(terms),
    intentShare: record.bestIntentShare(rarities, terms),
    namePhrase: record.namePairCount === 0 ? 0 : record.sharedNamePairs(pairs) / record.namePairCount,
    intentPhrase: pairs.size === 0 || record.intentPairCount === 0 ? 0 : record.sharedIntentPairs(pairs) / pairs.size,
    nameHead: head !== undefined && terms.has(head) ? 1 : 0,
    unknownShare: request.unknownShare,
    valueShare: request.valueShare,
    matchedWords,
    queryWords: words.length,
    evidence,
  };
}

const SINGLE_IDEOGRAPH = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

// What one matched word says about the tool: whole matches in what names or describes the tool
// count fully, among its parameters at half; a word the request gives as a value (a name, a code)
// counts only where it names or describes the tool (a city matching a parameter's example list
// says nothing). A single Chinese or Japanese character is too ambiguous to say much on its own.
function wordEvidence(word: QueryWord, mask: number, whole: number): number {
  if (whole === 0) return 0;
  const describes = (mask & (NAMING_FIELDS | DESCRIBING_FIELDS)) !== 0;
  const factor = describes ? 1 : (mask & PARAM_FIELDS) !== 0 && !word.value ? 0.5 : 0;
  const single = SINGLE_IDEOGRAPH.test(word.word) ? 0.25 : 1;
  return whole * factor * single;
}

// Rarity is not stored with the tool's record: it changes with every tool an update adds or
// removes. It is worked out once per index version, for the tools a request brings up.
function intentRarity(index: SearchIndex, position: number): Float64Array[] {
  let rarities = index.intentRarity[position];
  if (rarities === undefined) {
    rarities = recordRarity(index, index.records.at(position)!);
    index.intentRarity[position] = rarities;
  }
  return rarities;
}

/** The rarity in `index` of each word of each of a record's intents and examples. */
export function recordRarity(index: SearchIndex, record: ToolRecord): Float64Array[] {
  return record.intentTerms().map((terms) => Float64Array.from(terms, (term) => inverseDocumentFrequency(index, term)));
}

/** Which request words occur (whole, or mostly) in which fields of a tool, e.g. `intent: 提交, 记录`. */
export function matchedFields(index: SearchIndex, position: number, words: QueryWord[]): string[] {
  const record = index.records.at(position)!;
  const byField = new Map<SearchField, string[]>();
  for (const word of words) {
    const { share, mask } = wordMatch(record, word);
    if (share <= 0.5) continue; // a word found only in small part is not shown as found
    for (const field of SEARCH_FIELDS) {
      if ((mask & FIELD_BIT[field]) === 0) continue;
      const matched = byField.get(field);
      if (matched === undefined) byField.set(field, [word.word]);
      else matched.push(word.word);
    }
  }
  return [...byField].map(([field, matched]) => `${field}: ${matched.join(', ')}`);
}

// A whole word counts fully. An ideographic word not found whole counts by the share of its
// characters that matched parts (single characters or character pairs) cover, or by its English
// senses (`glossesOf`) where one of them is found, whichever says more.
// `whole` is 1 for a whole match, or for an ideographic word the share of its characters that
// character pairs cover when they cover at least half of it (single characters say too little).
function wordMatch(fields: ToolRecord, word: QueryWord): WordMatch {
  const found = fields.fieldsOf(word.terms[0]!);
  return found === undefined ? partialMatch(fields, word) : { share: 1, mask: found, whole: 1 };
}

// `wordMatch` of a word the tool does not have whole
function partialMatch(fields: ToolRecord, word: QueryWord): WordMatch {
  const parts = word.terms.length === 1 ? NO_MATCH : partsMatch(fields, word);
  if (word.glosses.senses.length === 0 || parts.share >= GLOSS_SHARE) return parts;
  const glossed = glossMatch(fields, word);
  return glossed.share > parts.share ? glossed : parts;
}

// Another form of the word found (discovery for discovered) covers half of it, and is no evidence that the request
// is the tool's business: forms sharing six letters are sometimes other words (particular, participants).
const RELATIVE_SHARE = 0.5;

function relativesMatch(fields: ToolRecord, relatives: readonly string[]): WordMatch {
  let mask = 0;
  for (const term of relatives) mask |= fields.fieldsOf(term) ?? 0;
  return mask === 0 ? NO_MATCH : { share: RELATIVE_SHARE, mask, whole: 0 };
}

interface WordMatch {
  share: number;
  mask: number;
  whole: number;
}

const NO_MATCH: WordMatch = { share: 0, mask: 0, whole: 0 };

// A sense found whole is a translation of the word, less sure than the word itself: it counts this
// much of a whole match, and a sense found in part that share of it.
const GLOSS_SHARE = 0.8;
// As evidence that the request is this tool's business, a sense counts fully only where it is the
// word's first, its common meaning (删除 as "delete"); a rarer reading found in a tool (处理 as
// "punish"), or a sense of a part of a word the dictionary lacks, ranks it, but is weak evidence,
// as a lone Chinese character is.
const RARE_SENSE_EVIDENCE = 0.25;

function glossMatch(fields: ToolRecord, word: QueryWord): WordMatch {
  let best = 0;
  let mask = 0;
  let first = Infinity;
  word.glosses.senses.forEach((sense, at) => {
    let hits = 0;
    let senseMask = 0;
    for (const term of sense) {
      const found = fields.fieldsOf(term);
      if (found === undefined) continue;
      hits += 1;
      senseMask |= found;
    }
    const share = hits / sense.length;
    if (share === 1) first = Math.min(first, at);
    if (share > best) [best, mask] = [share, senseMask];
    else if (share === best && share > 0) mask |= senseMask;
  });
  const whole = best < 1 ? 0 : first < word.glosses.common ? GLOSS_SHARE : RARE_SENSE_EVIDENCE;
  return { share: best * GLOSS_SHARE, mask, whole };
}

function partsMatch(fields: ToolRecord, word: QueryWord): WordMatch {
  const characters = [...word.word];
  const covered = new Array<boolean>(characters.length).fill(false);
  const paired = new Array<boolean>(characters.length).fill(false);
  let mask = 0;
  characters.forEach((character, index) => {
    const single = fields.fieldsOf(character);
    const pair = index + 1 < characters.length ? fields.fieldsOf(character + characters[index + 1]!) : undefined;
    if (single !== undefined) [covered[index], mask] = [true, mask | single];
    if (pair !== undefined) {
      [covered[index], covered[index + 1], mask] = [true, true, mask | pair];
      [paired[index], paired[index + 1]] = [true, true];
    }
  });
  const pairShare = paired.filter(Boolean).length / characters.length;
  return { share: covered.filter(Boolean).length / characters.length, mask, whole: pairShare >= 0.5 ? pairShare : 0 };
}
