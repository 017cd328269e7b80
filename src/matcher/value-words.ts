import { analyzeWords } from './analyze.js';

// an apostrophe between letters inside quoted text is a contraction or a possessive (It's, don't, O'Brien), not its end:
// 'I love the food here! It's always fresh' was not read as quoted at all, and its words counted as what was asked
const QUOTED = /(^|[\s([{:,;])(["“«'‘])((?:[^"“”«»'‘’\n]|(?<=\p{L})['’](?=\p{L})){1,80}?)(["”»'’])(?=$|[\s)\]}.,!?:;])/gu;
// a request wrapped whole in quotes (pasted as a quotation, or a test case's literal) is the request, not a value in it
const WRAPPED = /^\s*["“«'‘]([^]*)["”»'’]\s*$/u;
const NO_QUOTE = /^(?:[^"“”«»'‘’]|(?<=\p{L})['’](?=\p{L}))*$/u;
// a capitalised word not opening a sentence is most often a name: a person, place, product or title
const CAPITALISED = /\p{Lu}\p{Ll}+/gu;
const SENTENCE_OPENING = /(^|[.!?:\n]["'”’)]*\s*|["“'‘(]\s*)$/u;
// letters and digits in one word (5m, user123, SK123, v2) are codes and quantities
const WORD = /[\p{L}\p{Nd}]+/gu;
const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
// words joined by dots, slashes or colons are file names, paths, addresses and versions
const JOINED = /[\p{L}\p{Nd}_~-][./\\:]+[\p{L}\p{Nd}_~-]/u;
// scripts written without spaces (杀掉占用8080端口的进程 is one token)
const UNSPACED_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u3000-\u303f\uff00-\uffef]+/u;
// (tokens are tested one by one: patterns run over a whole pasted text would backtrack on long words)

// Values are looked for where a request's words are read: its opening holds far more than the 32
// words analysed, and a pasted document would otherwise cost more to scan than to rank.
/** How much of a request's opening is read for values, dates and relative dates (one limit for all three). */
export const MAX_SCANNED_CHARACTERS = 1024;
const MAX_SPAN_WORDS = 32;

/** The lower-cased words a request gives as values: quoted text, capitalised names mid-sentence, codes, paths. */
export function valueWords(request: string): Set<string> {
  const text = unwrapped(request.slice(0, MAX_SCANNED_CHARACTERS));
  const values = new Set<string>();
  for (const match of text.matchAll(QUOTED)) addValues(match[3]!, values);
  for (const match of text.matchAll(CAPITALISED)) {
    if (!SENTENCE_OPENING.test(text.slice(Math.max(0, match.index - 4), match.index))) addValues(match[0], values);
  }
  for (const token of text.split(/\s+/)) {
    // a sentence written without spaces is one token: its own words are not a code for the number or file name inside it
    if (!UNSPACED_RUN.test(token)) addCodes(token, values); // most tokens: no array of one piece per token
    else for (const piece of token.split(UNSPACED_RUN)) addCodes(piece, values);
  }
  return values;
}

// The request inside the quotes it is wrapped in, layer by layer ("'Get the stock price of Apple'"), when no other quote
// stands inside (then the outer marks open and close quotations of their own: 'a' and 'b')
function unwrapped(text: string): string {
  let inner = text;
  for (let wrapped = WRAPPED.exec(inner); wrapped !== null; wrapped = WRAPPED.exec(inner)) inner = wrapped[1]!;
  return inner !== text && NO_QUOTE.test(inner) ? inner : text;
}

function addCodes(piece: string, values: Set<string>): void {
  if (JOINED.test(piece)) addValues(piece, values);
  else if (DIGIT.test(piece) && LETTER.test(piece)) {
    for (const [word] of piece.matchAll(WORD)) if (LETTER.test(word) && DIGIT.test(word)) addValues(word, values);
  }
}

function addValues(span: string, values: Set<string>): void {
  for (const { word } of analyzeWords(span, MAX_SPAN_WORDS)) values.add(word);
}

/** A request with the words it gives as values left out: what it asks for, not what it asks it of. */
export function withoutValues(text: string): string {
  const values = valueWords(text);
  return analyzeWords(text)
    .filter(({ word }) => !values.has(word))
    .map(({ word }) => word)
    .join(' ');
}
