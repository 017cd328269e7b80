import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_TEXT_UNITS, sendJsonInPieces } from '../../src/http-edge/json-in-pieces.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// An answer with a long output goes out in pieces, the event loop turning between them (a 48 MB answer as one res.json
// held the process's main thread for seconds). Whatever the text — surrogate pairs, lone halves, escapes — and wherever
// a piece ends, what arrives is what JSON.stringify writes whole. A real express server on 127.0.0.1.

let sent: object = {};
let url = '';
const app = express();
app.get('/answer', (_request, response) => sendJsonInPieces(response, 200, sent));
let server: ReturnType<typeof app.listen>;
beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/answer`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const fragment = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.array(fc.constantFrom('\ud800', '\udc00', '\ud83d\ude00', '"', '\\', '\n', '\u0000', '\u001f', 'é', '中', 'a'), { maxLength: 12 }).map((parts) => parts.join('')),
);
// a text past LONG_TEXT_UNITS: the fragments repeated, starting anywhere, so that pairs and escapes fall on every piece's end
const longText = fc.tuple(fc.array(fragment, { minLength: 1, maxLength: 8 }), fc.nat({ max: 300 })).map(([parts, shift]) => {
  const unit = parts.join('') || 'x';
  return ('y'.repeat(shift) + unit.repeat(Math.ceil((LONG_TEXT_UNITS + 1) / unit.length))).slice(0, LONG_TEXT_UNITS + 1 + shift * 997);
});

describe('sendJsonInPieces', () => {
  it('writes what JSON.stringify writes, a long string cut into pieces anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(longText, fc.oneof(fragment, fc.constant(undefined)), fc.integer(), async (output, stderr, exit) => {
        sent = { ok: true, output, stderr, exit_code: exit, nested: { text: 'a"b' }, skipped: undefined };
        const response = await fetch(url);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const text = await response.text();
        expect(text === JSON.stringify(sent)).toBe(true);
      }),
      { numRuns: runs(25) },
    );
  }, propertyTimeout(120_000));

  it('answers a short one as res.json does', async () => {
    sent = { ok: true, output: 'short' };
    const response = await fetch(url);
    expect(response.headers.get('content-length')).toBe(String(JSON.stringify(sent).length));
    expect(await response.text()).toBe(JSON.stringify(sent));
  });
});
