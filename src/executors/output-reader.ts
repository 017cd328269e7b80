import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { BoundedOutput } from './bounded-output.js';

/**
 * Every output channel read by `readOutput` is read into this one buffer: a read is handed to its channel's
 * `BoundedOutput`, which copies what it keeps, before the next read (of any channel) can overwrite it. 64 KiB: what
 * a pipe holds, and what libuv would otherwise allocate afresh for every read.
 */
const SHARED = Buffer.allocUnsafe(64 * 1024);

/** How many channels were read each way: a test holds the fast way in use (a Node upgrade could silently end it). */
export const outputReads = { sharedBuffer: 0, stream: 0 };

/** What a pipe handle of Node must offer to be read into a buffer of ours (libuv's StreamBase). */
interface PipeHandle {
  readStop(): number;
  useUserBuffer(buffer: Uint8Array): void;
  reading?: boolean;
}

function pipeHandle(stream: Readable): PipeHandle | undefined {
  const handle = (stream as { _handle?: unknown })._handle as Partial<PipeHandle> | null | undefined;
  if (!(stream instanceof Socket) || handle === null || typeof handle !== 'object') return undefined;
  if (typeof handle.readStop !== 'function' || typeof handle.useUserBuffer !== 'function') return undefined;
  return handle as PipeHandle;
}

/**
 * Reads a child's stdout or stderr into `sink` until it ends. Where the stream is a pipe socket of Node's (it is, from
 * `spawn`), its handle is handed to a socket made with the documented `onread` option, which reads into the shared
 * buffer: no Buffer is made per read, so a tool that prints a gigabyte under a small cap costs no garbage (with a
 * Buffer per read, about 16,000 per GiB, the heap outside V8 grew by tens of MiB before a collection freed them).
 * The handle is Node's internal `_handle`: where it is absent or not what is expected, the stream is read as
 * usual. Either way the stream emits 'close' once the output is over, so the child's 'close' still waits for it,
 * and destroying the stream stops the reading.
 */
export function readOutput(stream: Readable, sink: BoundedOutput): 'shared-buffer' | 'stream' {
  const handle = pipeHandle(stream);
  if (handle === undefined || stream.destroyed || stream.readableEnded) return readAsStream(stream, sink);
  // what arrived before (a launcher that waited for its run may have written while it waited)
  for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) sink.push(chunk);
  if (stream.readableEnded || (stream as Socket & { _handle: unknown })._handle !== handle) return readAsStream(stream, sink);
  handle.readStop();
  handle.reading = false;
  // the stream lets go of the handle: destroying it now closes nothing, and emits 'close' at once
  (stream as Socket & { _handle: unknown })._handle = null;
  let reader: Socket;
  try {
    reader = new Socket({ handle, readable: true, writable: false, onread: { buffer: SHARED, callback: (bytes: number, buffer: Uint8Array) => sink.push((buffer as Buffer).subarray(0, bytes)) } } as ConstructorParameters<typeof Socket>[0]);
  } catch {
    (stream as Socket & { _handle: unknown })._handle = handle;
    return readAsStream(stream, sink);
  }
  reader.on('error', () => undefined);
  // the two end together: the output is over when the reader is; a caller that gives up on the stream ends the reader
  reader.once('close', () => stream.destroy());
  stream.once('close', () => reader.destroy());
  outputReads.sharedBuffer += 1;
  return 'shared-buffer';
}

function readAsStream(stream: Readable, sink: BoundedOutput): 'stream' {
  stream.on('data', (chunk: Buffer) => sink.push(chunk));
  outputReads.stream += 1;
  return 'stream';
}
