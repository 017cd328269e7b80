import type { SearchIndex } from './search-index.js';

// How many first letters two English stems share to be taken as forms of one word the stemmer did not join
// (`discov` for discovered, `discoveri` for discovery, `discover` for discoverer; `multipl` / `multipli`). Six: five
// joined too much and seven too little when stems were cut to that length (issue #11's third pass).
const SHARED_LETTERS = 6;
const LATIN_STEM = /^[a-z]+$/;

// per index version, the index's stems by their first letters: made at the first request that needs it
const byPrefix = new WeakMap<SearchIndex, Map<string, string[]>>();

/** The index's other English stems that begin with the same six letters as `term` (none for a shorter or non-Latin term). */
export function relativesOf(index: SearchIndex, term: string): string[] {
  if (term.length < SHARED_LETTERS || !LATIN_STEM.test(term)) return NONE;
  let stems = byPrefix.get(index);
  if (stems === undefined) {
    stems = stemsByPrefix(index);
    byPrefix.set(index, stems);
  }
  const relatives = stems.get(term.slice(0, SHARED_LETTERS));
  if (relatives === undefined) return NONE;
  return relatives.length === 1 && relatives[0] === term ? NONE : relatives.filter((stem) => stem !== term);
}

const NONE: string[] = [];

function stemsByPrefix(index: SearchIndex): Map<string, string[]> {
  const stems = new Map<string, string[]>();
  for (const term of index.engine.dictionary.terms) {
    if (term.length < SHARED_LETTERS || !LATIN_STEM.test(term) || !index.documentFrequency.has(term)) continue;
    const prefix = term.slice(0, SHARED_LETTERS);
    const known = stems.get(prefix);
    if (known === undefined) stems.set(prefix, [term]);
    else known.push(term);
  }
  return stems;
}
