import { cutMarker } from './bounded-output.js';

// the marker `BoundedOutput` leaves where the cap cut bytes out (see `cutMarker`), wherever it stands in a text
const MARKERS = /\n\[… (\d+) bytes cut of (\d+) …\]\n/g;

/** A text with the parts of secrets that met a cut removed, and how many more bytes that cut. */
export interface TrimmedText {
  text: string;
  cutBytes: number;
}

/**
 * Where the output cap cut a text (at each cut marker), also cuts whatever could be part of a secret the cap cut in
 * two: the longest start of a secret that ends the text before the marker, and the longest end of one that starts
 * the text after it. The cap comes first (it runs where the bytes arrive, even in a remote gatekeeper), so redaction
 * never sees the whole of such a secret; without this a receipt showed its first or last characters. What is removed
 * is counted in the marker. Innocent characters that look like the start or end of a secret go too (at most one
 * secret's length each side): the cut moves, it never shows more. Base64 text (its marker's arithmetic says so) is
 * left as it is: no secret is readable in it, and a cut inside a group would break it.
 *
 * A tool may print text shaped like a marker as often as it likes, so the work is linear in the text: the markers are
 * found in one pass, each looks at no more than the longest secret's length on either side (a prefix-function match,
 * not every length tried), and the result is assembled once. Trying every length at every marker, over the whole text
 * before it, held the event loop for 80 s over 512 KiB of such lines (found in review).
 */
export function cutPartialSecrets(text: string, secrets: readonly string[]): TrimmedText {
  if (secrets.length === 0 || !text.includes(' bytes cut of ')) return { text, cutBytes: 0 };
  const markers = [...text.matchAll(MARKERS)];
  if (markers.length === 0) return { text, cutBytes: 0 };
  // base64 has no '[': such a text holds one marker, the cap's own
  if (markers.length === 1) {
    const only = markers[0]!;
    if (isBase64Cut(text.slice(0, only.index), text.slice(only.index! + only[0].length), Number(only[1]), Number(only[2]))) return { text, cutBytes: 0 };
  }
  const matchers = secrets.map((secret) => new Overlap(secret));
  const reach = Math.max(...secrets.map((secret) => secret.length));
  const parts: string[] = [];
  let added = 0;
  // where the text not yet taken begins: after the last marker and what was cut after it
  let from = 0;
  for (let at = 0; at < markers.length; at++) {
    const marker = markers[at]!;
    const start = marker.index!;
    const end = start + marker[0].length;
    const next = at + 1 < markers.length ? markers[at + 1]!.index! : text.length;
    const before = text.slice(Math.max(from, start - reach), start);
    const after = text.slice(end, Math.min(next, end + reach));
    const headCut = Math.max(...matchers.map((matcher) => matcher.startAtEnd(before)));
    const tailCut = Math.max(...matchers.map((matcher) => matcher.endAtStart(after)));
    const removed = Buffer.byteLength(before.slice(before.length - headCut)) + Buffer.byteLength(after.slice(0, tailCut));
    added += removed;
    // the recounted marker is never longer than the one the cap reserved room for (its numbers stay within the total)
    parts.push(text.slice(from, start - headCut), removed === 0 ? marker[0] : cutMarker(Number(marker[1]) + removed, Number(marker[2])));
    from = end + tailCut;
  }
  parts.push(text.slice(from));
  return { text: parts.join(''), cutBytes: added };
}

/**
 * How much of a secret a text begins or ends with, short of the whole of it (a whole secret was already redacted): the
 * longest start of the secret that ends the text, and the longest end of it that starts the text. Knuth-Morris-Pratt's
 * prefix function over the secret (and over it reversed), so each costs the text's length, not its square.
 */
class Overlap {
  private readonly forward: PrefixMatcher;
  private readonly backward: PrefixMatcher;

  constructor(secret: string) {
    this.forward = new PrefixMatcher(secret);
    this.backward = new PrefixMatcher(reverse(secret));
  }

  startAtEnd(text: string): number {
    return this.forward.longestAtEnd(text);
  }

  endAtStart(text: string): number {
    return this.backward.longestAtEnd(reverse(text));
  }
}

class PrefixMatcher {
  private readonly failure: number[];

  constructor(private readonly pattern: string) {
    this.failure = new Array<number>(pattern.length).fill(0);
    for (let at = 1, matched = 0; at < pattern.length; at++) {
      while (matched > 0 && pattern[at] !== pattern[matched]) matched = this.failure[matched - 1]!;
      if (pattern[at] === pattern[matched]) matched += 1;
      this.failure[at] = matched;
    }
  }

  // the longest start of the pattern, shorter than the whole of it, that ends `text`
  longestAtEnd(text: string): number {
    const { pattern, failure } = this;
    let matched = 0;
    for (let at = 0; at < text.length; at++) {
      while (matched > 0 && (matched === pattern.length || text[at] !== pattern[matched])) matched = failure[matched - 1]!;
      if (text[at] === pattern[matched]) matched += 1;
    }
    while (matched === pattern.length && matched > 0) matched = failure[matched - 1]!;
    return matched;
  }
}

// by UTF-16 code unit, as the comparisons are
function reverse(text: string): string {
  let reversed = '';
  for (let at = text.length - 1; at >= 0; at--) reversed += text[at];
  return reversed;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// whether head and tail are the base64 of what the marker counts: their decoded bytes and the cut make the total
function isBase64Cut(head: string, tail: string, cut: number, total: number): boolean {
  if (head.length % 4 !== 0 || tail.length % 4 !== 0 || !BASE64.test(head) || !BASE64.test(tail)) return false;
  const decoded = (text: string): number => (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  return decoded(head) + decoded(tail) + cut === total && Buffer.byteLength(head) + Buffer.byteLength(tail) + cut !== total;
}
