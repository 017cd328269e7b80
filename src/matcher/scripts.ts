import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { stemmer as russianStemmer } from '@orama/stemmers/russian';
import { createRequire } from 'node:module';

/** How the words of one writing system are reduced to index terms. */
export interface ScriptRules {
  /** whether words are written without spaces (or glue particles on), so word parts matter */
  ideographic: boolean;
  /** whether single characters carry meaning (Chinese and Japanese characters, not Hangul syllables) */
  characters?: boolean;
  /** the general stop list of the script's most widely used language */
  stopWords: ReadonlySet<string>;
  stem: (word: string) => string;
}

const keep = (word: string): string => word;

// The stop lists are read at the first word analysed, not with the matcher: `stopword` holds every language's list
// (~0.2 MB of CommonJS, required synchronously here), and `hldp serve` analyses nothing before it listens (issue #18).
const require = createRequire(import.meta.url);
let rules: Array<[RegExp, ScriptRules]> | undefined;

// One language per script is a deliberate simplification: Latin text is stemmed as English (the
// language tool descriptions are mostly written in) and Cyrillic as Russian. Other scripts are
// not stemmed. Korean has no stop
// list here: the one in `stopword` mixes in content words.
function scriptRules(): Array<[RegExp, ScriptRules]> {
  if (rules) return rules;
  const { ara, ell, eng, heb, hin, jpn, rus, tha, zho } = require('stopword') as typeof import('stopword');
  rules = [
    [/\p{Script=Latin}/u, { ideographic: false, stopWords: new Set(eng), stem: englishStemmer }],
    [/\p{Script=Cyrillic}/u, { ideographic: false, stopWords: new Set(rus), stem: russianStemmer }],
    [/\p{Script=Han}/u, { ideographic: true, characters: true, stopWords: new Set(zho), stem: keep }],
    [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, { ideographic: true, characters: true, stopWords: new Set(jpn), stem: keep }],
    [/\p{Script=Hangul}/u, { ideographic: true, stopWords: new Set(), stem: keep }],
    [/\p{Script=Arabic}/u, { ideographic: false, stopWords: new Set(ara), stem: keep }],
    [/\p{Script=Devanagari}/u, { ideographic: false, stopWords: new Set(hin), stem: keep }],
    [/\p{Script=Thai}/u, { ideographic: false, stopWords: new Set(tha), stem: keep }],
    [/\p{Script=Greek}/u, { ideographic: false, stopWords: new Set(ell), stem: keep }],
    [/\p{Script=Hebrew}/u, { ideographic: false, stopWords: new Set(heb), stem: keep }],
  ];
  return rules;
}

const OTHER: ScriptRules = { ideographic: false, stopWords: new Set(), stem: keep };

/** The rules for the script of a word's first letter (any script not listed gets no stop list and no stemming). */
export function rulesFor(word: string): ScriptRules {
  const letter = /\p{L}/u.exec(word)?.[0];
  if (letter === undefined) return OTHER;
  for (const [pattern, rules] of scriptRules()) if (pattern.test(letter)) return rules;
  return OTHER;
}
