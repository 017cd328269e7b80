import type { Response } from 'express';
import type { TextPieces } from '../core/index.js';

/** A string member longer than this (in UTF-16 units) makes an answer go out in pieces rather than as one `res.json`. */
export const LONG_TEXT_UNITS = 1024 * 1024;
/** How much of a long string is turned into JSON and written at once: ~6 MB of JSON at most (all escapes), a few ms. */
const PIECE_UNITS = 256 * 1024;

const aTurnOfTheLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Answers `status` with `value` as JSON, as `res.json` does, but written in pieces with a turn of the event loop
 * between them when one of its top-level members is a long string (a tool's output): `res.json` made one string of a
 * whole answer, one Buffer of it and its ETag's hash in one go, and 8 MB of NULs (48 MB of `\u0000`) held the main
 * thread 2.5 s — every other request of the process (`/healthz`, the other calls) waited behind it. The text is
 * JSON.stringify's, member by member in the value's own order; a long string is cut between UTF-16 units that do not
 * split a surrogate pair, so the pieces join to what JSON.stringify writes whole. Small answers go through `res.json`.
 */
export function sendJsonInPieces(response: Response, status: number, value: object): void {
  if (!Object.values(value).some((member) => typeof member === 'string' && member.length > LONG_TEXT_UNITS)) {
    response.status(status).json(value);
    return;
  }
  response.status(status).type('application/json');
  // the headers are sent: a failure now can only end the connection, which tells the client the answer is not whole
  writePieces(response, value).catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
}

// the client reads slower than we write: wait for it, rather than hold the whole answer in the socket's buffer
async function writeWaiting(response: Response, chunk: string | Uint8Array): Promise<void> {
  if (!response.write(chunk) && !response.destroyed) await new Promise<void>((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

async function writePieces(response: Response, value: object): Promise<void> {
  let first = true;
  const write = (text: string): Promise<void> => writeWaiting(response, text);
  await write('{');
  for (const [key, member] of Object.entries(value)) {
    if (response.destroyed) return;
    // what JSON.stringify leaves out of an object
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    const name = `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (typeof member !== 'string' || member.length <= LONG_TEXT_UNITS) {
      await write(name + JSON.stringify(member));
      continue;
    }
    await write(`${name}"`);
    for (const [start, end] of piecesOf(member, PIECE_UNITS)) {
      await write(JSON.stringify(member.slice(start, end)).slice(1, -1));
      if (response.destroyed) return;
      await aTurnOfTheLoop();
    }
    await write('"');
  }
  response.end('}');
}

/**
 * Answers `status` with `text`, a JSON text already made (a stored receipt's), as it is: in one `send` when short, else
 * in slices with a turn of the event loop between them, as `sendJsonInPieces` does for a value. A 96 MB receipt went
 * out through `res.json` of its parsed value, its parse, stringify, Buffer and ETag in one turn: /healthz waited behind
 * it for seconds. `text` may come in pieces (`TextPieces`), sent one after another: a text with a part replaced
 * (`receiptPiecesSeen`) is not copied whole to be sent.
 */
export function sendJsonText(response: Response, status: number, text: string | Uint8Array | TextPieces): void {
  const pieces = Array.isArray(text) ? text : [text];
  response.status(status).set('Content-Type', 'application/json; charset=utf-8');
  if (pieces.reduce((sum, piece) => sum + piece.length, 0) <= LONG_TEXT_UNITS) {
    response.send(pieces.every((piece) => typeof piece === 'string') ? pieces.join('') : Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece))));
    return;
  }
  writeSlices(response, pieces).catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
}

async function writeSlices(response: Response, pieces: TextPieces): Promise<void> {
  for (const text of pieces) {
    // bytes go as they are; a string is encoded a slice at a time
    for (const [start, end] of typeof text === 'string' ? piecesOf(text, PIECE_UNITS) : bytePieces(text.length)) {
      if (response.destroyed) return;
      await writeWaiting(response, typeof text === 'string' ? text.slice(start, end) : text.subarray(start, end));
      await aTurnOfTheLoop();
    }
  }
  response.end();
}

/** How many bytes of a JSON text already made are written at once: a copy to the socket, no encoding. */
const PIECE_BYTES = 1024 * 1024;

function bytePieces(length: number): Array<[number, number]> {
  const pieces: Array<[number, number]> = [];
  for (let start = 0; start < length; start += PIECE_BYTES) pieces.push([start, Math.min(length, start + PIECE_BYTES)]);
  return pieces;
}

// [start, end) of each piece of at most `units` UTF-16 units; a high surrogate at the end of a piece stays with its
// low half, so each piece encodes (or stringifies) alone as it would within the whole
function* piecesOf(text: string, units: number): Generator<[number, number]> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + units);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    yield [start, end];
    start = end;
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
