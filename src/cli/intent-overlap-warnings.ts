import type { Diagnostic, ToolIndex } from '../core/index.js';

/** What `hldp validate` says of definitions that take another tool's requests (review Z6, Z6-2). */
export interface OverlapWarnings {
  warnings: Diagnostic[];
  /** why the registry was not checked (too many examples and aliases to ask), to be said beside the count */
  skipped?: string;
}

/**
 * INTENT_OVERLAP: each tool's own examples and aliases asked of the whole registry as `hldp match` asks them; where
 * another tool now answers one first with `confidence: "high"`, a warning at that tool's `intent` line naming the
 * tool whose request it takes and the text. Which of the two came later is not looked up in git: the one that wins is
 * warned on, naming both. `texts` holds the definitions' text by path, for the line.
 */
export async function intentOverlapWarnings(index: ToolIndex, texts: ReadonlyMap<string, string>): Promise<OverlapWarnings> {
  const { createMatcher, intentOverlaps, overlapTextCount, MAX_OVERLAP_TEXTS } = await import('../matcher/index.js');
  const count = overlapTextCount(index);
  if (count > MAX_OVERLAP_TEXTS) {
    return { warnings: [], skipped: `INTENT_OVERLAP not checked: ${count} examples and aliases to ask (each a match over the registry), more than ${MAX_OVERLAP_TEXTS}` };
  }
  if (count === 0) return { warnings: [] };
  const matcher = await createMatcher(index).ready();
  const overlaps = intentOverlaps(index, (intent) => matcher.explainIntent(intent));
  // one warning per taker and tool taken from, naming the first text and how many more
  const pairs = new Map<string, typeof overlaps>();
  for (const overlap of overlaps) {
    const key = `${overlap.taker.name}\n${overlap.of.name}`;
    pairs.set(key, [...(pairs.get(key) ?? []), overlap]);
  }
  const warnings: Diagnostic[] = [];
  for (const taken of pairs.values()) {
    const { taker, of, text, kind } = taken[0]!;
    const file = taker.source.path;
    const more = taken.length > 1 ? ` (and ${taken.length - 1} more of its examples and aliases: ${taken.slice(1, 4).map((other) => `'${other.text}'`).join(', ')}${taken.length > 4 ? ', …' : ''})` : '';
    warnings.push({
      file,
      line: intentLine(texts.get(file)),
      column: 1,
      severity: 'warning',
      code: 'INTENT_OVERLAP',
      message:
        `'${text}' (an ${kind} of ${of.name}, ${of.source.path}) now matches ${taker.name} first, confidently${more}: ` +
        `an agent asking for what ${of.name} does would run ${taker.name}. If ${taker.name} is not meant to take ${of.name}'s requests, ` +
        `word its intent, examples and aliases for what it alone does (a definition copying another tool's wording takes its requests: review the intents)`,
    });
  }
  return { warnings };
}

// the line of the top-level `intent:` key (1 when it cannot be found)
function intentLine(text: string | undefined): number {
  if (text === undefined) return 1;
  const lines = text.split('\n');
  const at = lines.findIndex((line) => /^intent\s*:/.test(line));
  return at < 0 ? 1 : at + 1;
}
