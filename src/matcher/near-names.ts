import { distance } from 'fastest-levenshtein';
import { toolNameAt, type NearMiss, type ToolSequence } from '../core/index.js';
import { splitIdentifiers } from './analyze.js';

/** At most this many "did you mean" names: enough to fix a typo, never the catalogue. */
export const MAX_NEAR_NAMES = 3;

/** Every alias of an index as written, each with the position of a tool that claims it. */
export interface AliasesByPosition {
  readonly texts: readonly string[];
  readonly positions: readonly number[];
}

/**
 * Tools whose name or alias is spelled like `name`, or shares a word with it, closest first. Read from the names
 * and the aliases alone: only the few tools named are made, for their display (a typo at 100,000 tools made and
 * kept every definition).
 */
export function nearNames(tools: ToolSequence, aliases: AliasesByPosition, name: string): NearMiss[] {
  const wanted = normalise(name);
  const wantedWords = new Set(words(name));
  const best = new Float64Array(tools.length);
  for (let position = 0; position < tools.length; position++) best[position] = similarity(wanted, wantedWords, toolNameAt(tools, position)!);
  for (let at = 0; at < aliases.texts.length; at++) {
    const position = aliases.positions[at]!;
    best[position] = Math.max(best[position]!, similarity(wanted, wantedWords, aliases.texts[at]!));
  }
  const scored: Array<{ position: number; name: string; score: number }> = [];
  for (let position = 0; position < tools.length; position++) {
    if (best[position]! > 0) scored.push({ position, name: toolNameAt(tools, position)!, score: round(best[position]!) });
  }
  return scored
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
    .slice(0, MAX_NEAR_NAMES)
    .map(({ position, name: near, score }) => ({ name: near, display: tools.at(position)!.display, score }));
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
