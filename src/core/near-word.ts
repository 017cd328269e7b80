/**
 * The word of `words` a typo most likely meant: within two edits (a swap of neighbours counts as one; one edit for
 * words of up to four letters), or the one word `typed` begins; undefined when none is near or two are equally near.
 */
export function nearWord(typed: string, words: readonly string[]): string | undefined {
  if (typed.length === 0) return undefined;
  const most = typed.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = most + 1;
  let tied = false;
  for (const word of words) {
    const distance = editDistance(typed.toLowerCase(), word.toLowerCase(), most);
    if (distance < bestDistance) [best, bestDistance, tied] = [word, distance, false];
    else if (distance === bestDistance) tied = true;
  }
  if (best !== undefined && !tied) return best;
  // an abbreviation: `--time` for `--timeout`, when only one word begins so
  const started = words.filter((word) => word.startsWith(typed));
  return started.length === 1 ? started[0] : undefined;
}

/**
 * Every word of `words` a typo may have meant: all those within nearWord's distance, nearest first (a tie is kept, not
 * dropped as nearWord drops it), else the one word `typed` begins. Where a slip must be refused rather than guessed at,
 * a tie is still a slip (review Z18, Z18-2: `post` beside `host` and `port`).
 */
export function nearWords(typed: string, words: readonly string[]): string[] {
  if (typed.length === 0) return [];
  const most = typed.length <= 4 ? 1 : 2;
  const near = words
    .map((word) => ({ word, distance: editDistance(typed.toLowerCase(), word.toLowerCase(), most) }))
    .filter(({ distance }) => distance <= most)
    .sort((a, b) => a.distance - b.distance)
    .map(({ word }) => word);
  if (near.length > 0) return near;
  const started = words.filter((word) => word.startsWith(typed));
  return started.length === 1 ? started : [];
}

/** ` (did you mean 'team'?)` after an unknown name one of `names` is a typo of (`nearWord`), else nothing: toolsets and skills are told as tools are (review userZ5, F11). */
export function didYouMean(typed: string, names: readonly string[]): string {
  const near = nearWord(typed, names);
  return near === undefined ? '' : ` (did you mean '${near}'?)`;
}

/** Optimal string alignment distance (Levenshtein with adjacent swaps), or `most + 1` once it is sure to exceed `most`. */
export function editDistance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  // three rows: the one before the previous is needed for a swap
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      row.push(value);
      least = Math.min(least, value);
    }
    if (least > most) return most + 1;
    [before, previous] = [previous, row];
  }
  return Math.min(previous[b.length]!, most + 1);
}
