import type { Response } from 'express';

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

async function writePieces(response: Response, value: object): Promise<void> {
  let first = true;
  const write = async (text: string): Promise<void> => {
    // the client reads slower than we write: wait for it, rather than hold the whole answer in the socket's buffer
    if (!response.write(text) && !response.destroyed) await new Promise<void>((resolve) => {
      const done = (): void => {
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
    });
  };
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
    for (let start = 0; start < member.length; ) {
      let end = Math.min(member.length, start + PIECE_UNITS);
      // a high surrogate at the end of a piece stays with its low half
      if (end < member.length && isHighSurrogate(member.charCodeAt(end - 1))) end -= 1;
      const piece = JSON.stringify(member.slice(start, end));
      await write(piece.slice(1, -1));
      start = end;
      if (response.destroyed) return;
      await aTurnOfTheLoop();
    }
    await write('"');
  }
  response.end('}');
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
