import type { FileHandle } from 'node:fs/promises';
import type { ExecutionResult } from '../core/index.js';
import { boundBytes, BYTES_PER_ROW, bytesHeader, describeError, dumpRow, failedResult, MAX_READ_BYTES, startDeadline, succeededResult } from '../executors/index.js';
import type { MethodContext } from './method-context.js';

const READ_CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export { MAX_READ_BYTES };

/** Which lines a windowed `read_file` asks for: `offset` is the first line (1-based), `limit` how many at most. */
export interface LineWindow {
  offset?: number;
  limit?: number;
}

/** `[lines A-B of N]`, and where to continue when lines are left. */
export function linesHeader(first: number, last: number, total: number): string {
  return last < total ? `[lines ${first}-${last} of ${total}; continue with offset ${last + 1}]\n` : `[lines ${first}-${last} of ${total}]\n`;
}

/**
 * Lines `offset`..`offset+limit-1` of an open file, under a `[lines A-B of N]` header, cut at a line boundary so
 * that header and lines fit in the cap: the lines are the file's bytes exactly, so windows joined give back the
 * file. The whole file is streamed once (N needs every line counted); memory stays within the cap.
 */
export async function readLineWindow(handle: FileHandle, window: LineWindow, context: MethodContext, path: string): Promise<ExecutionResult> {
  const start = performance.now();
  const offset = window.offset ?? 1;
  const limit = window.limit ?? Number.MAX_SAFE_INTEGER;
  const size = (await handle.stat()).size;
  // every number in the header is at most size + 1: reserve room for the longest header there can be
  const budget = context.maxOutputBytes - Buffer.byteLength(linesHeader(size + 1, size + 1, size + 2));
  if (budget < 1) return failedResult('INVALID_PARAMS', `max_output_bytes ${context.maxOutputBytes} leaves no room for any line of '${path}' after the header`, start);
  const deadline = startDeadline(context.timeoutMs, context.signal);
  const kept: Buffer[] = [];
  /** bytes of the whole lines kept so far */
  let windowBytes = 0;
  /** 1-based number of the line being read */
  let line = 1;
  /** bytes of the current line seen so far, while it is inside the window */
  let lineBytes = 0;
  let last = offset - 1;
  let closed = false;
  let firstTooLong: number | undefined;
  let endsWithNewline = true;
  let sawBytes = false;
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const stopped = deadline.reason();
      if (stopped === 'timeout') return failedResult('TIMEOUT', `reading '${path}' took longer than ${context.timeoutMs} ms`, start);
      if (stopped === 'cancelled') return failedResult('CANCELLED', 'cancelled by the caller', start);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      sawBytes = true;
      const data = chunk.subarray(0, bytesRead);
      endsWithNewline = data[bytesRead - 1] === NEWLINE;
      let position = 0;
      while (position < data.length) {
        const newline = data.indexOf(NEWLINE, position);
        const end = newline === -1 ? data.length : newline + 1;
        if (!closed && line >= offset && line < offset + limit) {
          if (windowBytes + lineBytes + (end - position) > budget) {
            // this line does not fit: the window ends before it, and what was kept of it goes
            closed = true;
            if (last < offset) firstTooLong = line;
            dropTail(kept, lineBytes);
          } else {
            kept.push(Buffer.from(data.subarray(position, end)));
            lineBytes += end - position;
            if (newline !== -1) {
              windowBytes += lineBytes;
              last = line;
            }
          }
        }
        if (newline === -1) break;
        line += 1;
        lineBytes = 0;
        position = end;
      }
    }
  } catch (error) {
    return failedResult('IO_ERROR', describeError(error), start);
  } finally {
    deadline.clear();
  }
  // a last line without a newline is a line; the count is of lines, not of newline characters
  const total = !sawBytes ? 0 : endsWithNewline ? line - 1 : line;
  // a last line without a newline is whole at the end of the file
  if (!closed && !endsWithNewline && lineBytes > 0) last = line;
  if (firstTooLong !== undefined) {
    return failedResult('INVALID_PARAMS', `line ${firstTooLong} of '${path}' alone is longer than the ${budget} bytes this call may show; read it with read_bytes, or raise max_output_bytes`, start);
  }
  if (total === 0) return succeededResult(boundBytes(linesHeader(0, 0, 0), context.maxOutputBytes), start);
  if (offset > total) return failedResult('INVALID_PARAMS', `offset ${offset} is past the end of '${path}', which has ${total} lines`, start);
  const text = Buffer.concat([Buffer.from(linesHeader(offset, last, total)), ...kept]);
  return { ...succeededResult({ text: text.toString('utf8'), totalBytes: text.length, cutBytes: 0 }, start), output_bytes: text.length };
}

// Removes the last `bytes` bytes pushed (the part of a line that turned out not to fit).
function dropTail(kept: Buffer[], bytes: number): void {
  let left = bytes;
  while (left > 0 && kept.length > 0) {
    const tail = kept[kept.length - 1]!;
    if (tail.length <= left) {
      kept.pop();
      left -= tail.length;
    } else {
      kept[kept.length - 1] = tail.subarray(0, tail.length - left);
      left = 0;
    }
  }
}

/**
 * `read_bytes {path, offset?, length?}`: at most 8 KiB of an open file from byte `offset`, as a classic hex dump
 * (offset, 16 bytes in hex, their printable ASCII) under a `[bytes A-B of N]` header; fewer bytes when the dump
 * would not fit in the cap.
 */
export async function readByteWindow(handle: FileHandle, window: { offset?: number; length?: number }, context: MethodContext, path: string): Promise<ExecutionResult> {
  const start = performance.now();
  const offset = window.offset ?? 0;
  const size = (await handle.stat()).size;
  if (size === 0) return succeededResult(boundBytes('[bytes 0-0 of 0]\n', context.maxOutputBytes), start);
  if (offset >= size) return failedResult('INVALID_PARAMS', `offset ${offset} is past the end of '${path}', which has ${size} bytes (the last offset is ${size - 1})`, start);
  // the longest header this file can have: the continue form, every number at most size + 1
  const header = Buffer.byteLength(bytesHeader(size, size, size + 2));
  const rowWidth = dumpRow(Buffer.alloc(BYTES_PER_ROW), size).length;
  const rowsThatFit = Math.floor((context.maxOutputBytes - header) / rowWidth);
  if (rowsThatFit < 1) return failedResult('INVALID_PARAMS', `max_output_bytes ${context.maxOutputBytes} leaves no room for one row of the dump of '${path}'`, start);
  const length = Math.min(window.length ?? MAX_READ_BYTES, MAX_READ_BYTES, rowsThatFit * BYTES_PER_ROW, size - offset);
  const bytes = Buffer.alloc(length);
  let read = 0;
  try {
    while (read < length) {
      const { bytesRead } = await handle.read(bytes, read, length - read, offset + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
  } catch (error) {
    return failedResult('IO_ERROR', describeError(error), start);
  }
  const rows: string[] = [];
  for (let at = 0; at < read; at += BYTES_PER_ROW) rows.push(dumpRow(bytes.subarray(at, Math.min(read, at + BYTES_PER_ROW)), offset + at));
  const text = bytesHeader(offset, offset + read - 1, size) + rows.join('');
  return { ...succeededResult({ text, totalBytes: Buffer.byteLength(text), cutBytes: 0 }, start) };
}
