import type { ErrorCode, ExecutionResult } from '../core/index.js';
import { cutMarker } from './bounded-output.js';
import { boundedFailure, cutFailure } from './execution-result.js';
import type { StringCuts } from './json-string-cutter.js';

const MARKER = /\n\[… (\d+) bytes cut of (\d+) …\]\n/g;

const isContinuationByte = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/**
 * A failure whose message holds a string the answer's cutter already cut as it streamed (a server's JSON-RPC error of
 * 5 MiB): cut once more to the tool's cap, the two cuts made one, with one marker counting both, as a tool's output
 * is. Cut again as any text, the message carried the first marker's broken end inside the second and counted only
 * what the second left out (the stdio answer's cutter, review S, S9). Any other message is `boundedFailure`'s.
 */
export function cutErrorMessage(code: ErrorCode, message: string, cap: number, cuts: StringCuts | undefined, start: number): ExecutionResult {
  const markers = cuts && cuts.cutBytes > 0 ? [...message.matchAll(MARKER)] : [];
  if (markers.length !== 1) return boundedFailure(code, message, cap, start);
  const found = markers[0]!;
  const cutBefore = Number(found[1]);
  const head = Buffer.from(message.slice(0, found.index));
  const tail = Buffer.from(message.slice(found.index! + found[0].length));
  const total = head.length + cutBefore + tail.length;
  const budget = Math.max(0, cap - Buffer.byteLength(cutMarker(total, total)));
  let headEnd = Math.min(head.length, Math.floor(budget / 2));
  while (headEnd > 0 && isContinuationByte(head[headEnd])) headEnd -= 1;
  let tailStart = Math.max(0, tail.length - (budget - headEnd));
  while (tailStart < tail.length && isContinuationByte(tail[tailStart])) tailStart += 1;
  const cutBytes = total - headEnd - (tail.length - tailStart);
  const text = head.subarray(0, headEnd).toString() + cutMarker(cutBytes, total) + tail.subarray(tailStart).toString();
  // other strings of the answer the cutter cut (its `data`) count too
  const rest = cuts!.cutBytes - cutBefore;
  const failure = cutFailure(code, { text, totalBytes: total, cutBytes }, start);
  return { ...failure, output_bytes: failure.output_bytes + Math.max(0, rest), cut_bytes: failure.cut_bytes + Math.max(0, rest) };
}
