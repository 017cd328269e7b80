import { analyzeWords } from './analyze.js';
import type { RequestTerms } from './features.js';
import { glossesOf, type Glosses } from './lexicon.js';
import { bridgedScripts, isForeignFunctionWord, loanwordGlosses } from './loanwords.js';
import { relativesOf } from './relatives.js';
import { thesaurusGlosses } from './thesaurus.js';
import { inverseDocumentFrequency, type SearchIndex } from './search-index.js';
import { valueWords } from './value-words.js';
import { whenWords } from './relative-dates.js';

/** A request's content word, with its terms and its weight (rarity in the index, less for a value). */
export interface QueryWord {
  word: string;
  terms: string[];
  weight: number;
  /** whether the request gives it as a value (quoted, a name, a code) rather than saying what it wants */
  value: boolean;
  /**
   * whether it says when (*tomorrow*, 下周, завтра: `relativeDates`): the request's value as a date it writes is, not part
   * of what it asks for when the confidence weighs how much of that the first tool has (`contentCoverage`)
   */
  when: boolean;
  /** a Chinese word's English senses (see `glossesOf`): what it can match in tools described in English */
  glosses: Glosses;
  /**
   * The index's other English stems with the word's first six letters (`discoveri` for discovered): forms of one word
   * the stemmer did not join, searched and covering the word at half its weight, never evidence that anything matches
   */
  relatives: string[];
}

const NO_GLOSSES: Glosses = { senses: [], common: 0 };
const NO_RELATIVES: string[] = [];
// a word in ASCII letters in a request in another script is a name or a code, not a borrowed word
const ASCII_WORD = /^[\x00-\x7f]*$/;
const NOT_LATIN_LETTER = /[^\p{Script=Latin}\P{L}]/u;
const LATIN_ONLY = /^[\p{Script=Latin}\p{M}\p{Nd}]*$/u;

// An intent is a sentence or two; past this many distinct words the rest is pasted material, and
// reading all of it would make one request cost as much as hundreds.
const MAX_QUERY_WORDS = 32;
// far more text than 32 words need: a pasted document is not split and lower-cased in full
const MAX_QUERY_CHARACTERS = 4096;

/**
 * The request's distinct content words, each weighted by its rarity in the index (values by
 * `valueWeight` more), all their terms, and the pairs of words that stand side by side in it. With `thesaurus`, an
 * English word without senses of its own is given the words WordNet relates to it as its senses (`thesaurusGlosses`):
 * only for a request the words find nothing for (`thesaurusAnswer`), never for the ranking of one they answer.
 */
export function readRequest(index: SearchIndex, text: string, valueWeight: number, thesaurus = false): RequestTerms {
  const request = text.slice(0, MAX_QUERY_CHARACTERS);
  const values = valueWords(request);
  const when = whenWords(request);
  const words: QueryWord[] = [];
  const terms = new Set<string>();
  const pairs = new Set<string>();
  const seen = new Set<string>();
  let previous: string | undefined;
  const analysed = analyzeWords(request, MAX_QUERY_WORDS);
  // only a request with a function word of Spanish, German, … is read again for its language (most are in English)
  const bridged = analysed.some(({ word }) => isForeignFunctionWord(word)) ? bridgedScripts(request) : undefined;
  for (const { word, terms: wordTerms } of analysed) {
    const first = wordTerms[0]!;
    // a request in Spanish or German has its function words (de, la, und) read as English's are: left out
    if (bridged?.latin === true && isForeignFunctionWord(word)) continue;
    if (previous !== undefined && previous !== first) pairs.add(`${previous} ${first}`);
    previous = first;
    if (seen.has(first) || words.length === MAX_QUERY_WORDS) continue;
    seen.add(first);
    for (const term of wordTerms) terms.add(term);
    const value = values.has(word);
    let glosses = value ? NO_GLOSSES : glossesOf(word);
    if (!value && glosses.senses.length === 0 && glosses.pending !== true && !index.documentFrequency.has(first)) glosses = loanSenses(index, word, bridged?.latin === true);
    if (thesaurus && !value && glosses.senses.length === 0 && bridged?.latin !== true) glosses = thesaurusGlosses(index, word, first);
    const weight = inverseDocumentFrequency(index, first) * (value ? valueWeight : 1);
    // a translation is searched and covers the word, but it is not the request naming the tool: its
    // senses stay out of the terms that name and intent shares, and so the confidence, compare
    words.push({ word, terms: wordTerms, weight, value, when: when.has(word), glosses, relatives: value ? NO_RELATIVES : relativesOf(index, first) });
  }
  const share = (test: (word: QueryWord) => boolean): number =>
    words.length === 0 ? 0 : words.filter(test).length / words.length;
  const unknownShare = share((word) => !index.documentFrequency.has(word.terms[0]!));
  // not in English: Latin words mostly another language's (as `bridged` says), or most words in another script
  const foreign = bridged?.latin === true || analysed.filter(({ word }) => NOT_LATIN_LETTER.test(word)).length * 2 > analysed.length;
  return { words, terms, pairs, unknownShare, valueShare: share((word) => word.value), foreign };
}


// A word no tool has, in a request not in English, may be an English word borrowed (see `loanwordGlosses`); a word
// in ASCII letters in a request in another script is a name or a code, as a value is (bridging German's capitalised
// nouns, which are read as names, too gained one request of 33 and cost Russian's names as much: not done)
function loanSenses(index: SearchIndex, word: string, latin: boolean): Glosses {
  if (ASCII_WORD.test(word)) return latin ? loanwordGlosses(index, word) : NO_GLOSSES;
  // a word with a letter of another script than Latin's, or any word of a request not in English
  return latin || !LATIN_ONLY.test(word) ? loanwordGlosses(index, word) : NO_GLOSSES;
}
