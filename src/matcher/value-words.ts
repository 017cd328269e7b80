import { analyzeWords } from './analyze.js';

const QUOTED = /(^|[\s([{:,;])(["“«'‘])([^"“”«»'‘’\n]{1,80}?)(["”»'’])(?=$|[\s)\]}.,!?:;])/gu;
// a capitalised word not opening a sentence is most often a name: a person, place, product or title
const CAPITALISED = /\p{Lu}\p{Ll}+/gu;
const SENTENCE_OPENING = /(^|[.!?:\n]["'”’)]*\s*|["“'‘(]\s*)$/u;
// letters and digits in one token (5m, user123, SK123, v2) are codes and quantities
const CODE = /[\p{L}\p{Nd}]*(?:\p{L}\p{Nd}|\p{Nd}\p{L})[\p{L}\p{Nd}]*/gu;
// words joined by dots, slashes or colons are file names, paths, addresses and versions
const PATH = /[\p{L}\p{Nd}_~-]+(?:[./\\:]+[\p{L}\p{Nd}_~-]+)+/gu;

/** The lower-cased words a request gives as values: quoted text, capitalised names mid-sentence, codes, paths. */
export function valueWords(text: string): Set<string> {
  const values = new Set<string>();
  const add = (span: string): void => {
    for (const { word } of analyzeWords(span)) values.add(word);
  };
  for (const match of text.matchAll(QUOTED)) add(match[3]!);
  for (const match of text.matchAll(CAPITALISED)) {
    if (!SENTENCE_OPENING.test(text.slice(Math.max(0, match.index - 4), match.index))) add(match[0]);
  }
  for (const match of text.matchAll(CODE)) add(match[0]);
  for (const match of text.matchAll(PATH)) add(match[0]);
  return values;
}

/** A request with the words it gives as values left out: what it asks for, not what it asks it of. */
export function withoutValues(text: string): string {
  const values = valueWords(text);
  return analyzeWords(text)
    .filter(({ word }) => !values.has(word))
    .map(({ word }) => word)
    .join(' ');
}
