import { distance } from 'fastest-levenshtein';
import type { NearMiss, ToolDefinition } from '../core/index.js';
import { splitIdentifiers } from './analyze.js';

/** At most this many "did you mean" names: enough to fix a typo, never the catalogue. */
export const MAX_NEAR_NAMES = 3;

/** Tools whose name or alias is spelled like `name`, or shares a word with it, closest first. */
export function nearNames(tools: readonly ToolDefinition[], name: string): NearMiss[] {
  const wanted = normalise(name);
  const wantedWords = new Set(words(name));
  const scored: NearMiss[] = [];
  for (const tool of tools) {
    let best = 0;
    for (const known of [tool.name, ...tool.aliases]) {
      best = Math.max(best, similarity(wanted, wantedWords, known));
    }
    if (best > 0) scored.push({ name: tool.name, display: tool.display, score: round(best) });
  }
  return scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1)).slice(0, MAX_NEAR_NAMES);
}

// a typo (small edit distance) or a shared word ("exec" in "shell-exec") makes a name near
function similarity(wanted: string, wantedWords: Set<string>, known: string): number {
  const candidate = normalise(known);
  const longest = Math.max(wanted.length, candidate.length);
  if (longest === 0) return 0;
  const edits = distance(wanted, candidate);
  const allowed = Math.max(2, Math.floor(longest / 3));
  const spelling = edits <= allowed ? 1 - edits / longest : 0;
  const knownWords = words(known);
  const shared = knownWords.filter((word) => wantedWords.has(word)).length;
  const overlap = shared === 0 ? 0 : (0.5 * shared) / Math.max(knownWords.length, wantedWords.size);
  return Math.max(spelling, overlap);
}

function normalise(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/[\s_.-]+/g, '-');
}

function words(name: string): string[] {
  return splitIdentifiers(name)
    .flatMap((part) => part.toLowerCase().split(/[\s-]+/))
    .filter((word) => word.length > 1);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
