import { cutMarker } from './bounded-output.js';

// the marker `BoundedOutput` leaves where the cap cut bytes out (see `cutMarker`)
const MARKER = /\n\[… (\d+) bytes cut of (\d+) …\]\n/;

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
 */
export function cutPartialSecrets(text: string, secrets: readonly string[]): TrimmedText {
  if (secrets.length === 0 || !text.includes(' bytes cut of ')) return { text, cutBytes: 0 };
  let done = '';
  let rest = text;
  let added = 0;
  for (let match = MARKER.exec(rest); match !== null; match = MARKER.exec(rest)) {
    const head = done + rest.slice(0, match.index);
    const tail = rest.slice(match.index + match[0].length);
    const cut = Number(match[1]);
    const total = Number(match[2]);
    if (isBase64Cut(head, tail, cut, total)) {
      done = head + match[0];
      rest = tail;
      continue;
    }
    const headEnd = head.length - longestStartAtEnd(head, secrets);
    const tailStart = longestEndAtStart(tail, secrets);
    const removed = Buffer.byteLength(head.slice(headEnd)) + Buffer.byteLength(tail.slice(0, tailStart));
    added += removed;
    // the recounted marker is never longer than the one the cap reserved room for (its numbers stay within the total)
    done = head.slice(0, headEnd) + (removed === 0 ? match[0] : cutMarker(cut + removed, total));
    rest = tail.slice(tailStart);
  }
  return { text: done + rest, cutBytes: added };
}

// how many characters at the end of `text` are the start of some secret (a whole secret was already redacted)
function longestStartAtEnd(text: string, secrets: readonly string[]): number {
  let longest = 0;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length - 1, text.length); length > longest; length -= 1) {
      if (text.endsWith(secret.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

// how many characters at the start of `text` are the end of some secret
function longestEndAtStart(text: string, secrets: readonly string[]): number {
  let longest = 0;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length - 1, text.length); length > longest; length -= 1) {
      if (text.startsWith(secret.slice(secret.length - length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// whether head and tail are the base64 of what the marker counts: their decoded bytes and the cut make the total
function isBase64Cut(head: string, tail: string, cut: number, total: number): boolean {
  if (head.length % 4 !== 0 || tail.length % 4 !== 0 || !BASE64.test(head) || !BASE64.test(tail)) return false;
  const decoded = (text: string): number => (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  return decoded(head) + decoded(tail) + cut === total && Buffer.byteLength(head) + Buffer.byteLength(tail) + cut !== total;
}
