import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { canonicalReceiptText } from '../../src/store/index.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

// A receipt holds whatever its tool printed: NULs, lone surrogates (an MCP server's JSON may carry one, an agent's params
// too), U+FFFD where bytes were not UTF-8, text that looks like an escape, lines of hundreds of KB. Each store keeps it
// whole, reads it back as stored, lists it, and its search finds exactly the calls whose output or error holds the text
// (ASCII letters in either case, as SQLite's lower() folds them). PostgreSQL's json functions refused such a text: its
// search and code filter failed (500) over one such call among those they read.

const piece = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udc00', '\ud83d', '\ude00', '😀', '\ufffd', '"', '\\', '\\u0000', '\\ud800', '\n', '\t', ' ', 'é', 'É', 'a', 'A', 'Zz', '%', '_', '\u2028', '"code":"TIMEOUT"'),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const small = fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join(''));
// past the writer thread's bound (256 Ki characters): written, read and parsed there
const huge = small.filter((text) => text !== '').map((text) => text.repeat(Math.ceil(270_000 / text.length)));
const printed = fc.oneof({ weight: 8, arbitrary: small }, { weight: 1, arbitrary: huge });

const call = fc.record({ output: printed, error: fc.option(small, { nil: null }), code: fc.constantFrom(null, 'NONZERO_EXIT', 'TIMEOUT'), note: small });

/** `text` with each lone surrogate made U+FFFD, as decoding a URL's query makes it (String.prototype.toWellFormed) */
const wellFormed = (text: string): string => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** What a search is asked for: part of a printed text (a hit, unless cut inside a surrogate pair), or any text; well-formed, as a URL's query decodes. */
const asked = (calls: Array<{ output: string; error: string | null }>) =>
  fc.oneof(
    fc.tuple(fc.nat({ max: calls.length - 1 }), fc.boolean(), fc.nat({ max: 40 }), fc.nat({ max: 12 })).map(([index, inError, start, length]) => {
      const from = (inError ? calls[index]!.error : null) ?? calls[index]!.output;
      return from.slice(start, start + length);
    }),
    small,
  ).map(wellFormed);

// the oracle, written apart from the stores' code: ASCII letters folded, a substring of the output or the error
const fold = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
const holds = (receipt: Receipt, text: string): boolean => [receipt.output, receipt.error].some((value) => value !== null && fold(value).includes(fold(text)));

const ids = (values: Array<{ id: string }>): string[] => values.map((value) => value.id);
const asText = (stored: string | Uint8Array | undefined): string | undefined => (stored instanceof Uint8Array ? new TextDecoder().decode(stored) : stored);

describe.each(storeKinds())('$name receipts holding any text', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  it('stores them whole, reads them back as stored, lists them, and finds exactly those whose output or error holds a text', async () => {
    let cases = 0;
    const generated = fc.array(call, { minLength: 1, maxLength: 4 }).chain((calls) => fc.tuple(fc.constant(calls), asked(calls)));
    await fc.assert(
      fc.asyncProperty(generated, async ([calls, text]) => {
        // each case its own caller, so its calls are listed and searched alone; started a second apart, oldest first
        const caller = `case-${(cases += 1)}`;
        const receipts = calls.map((made, index) => {
          const at = new Date(Date.UTC(2026, 11, 1) + cases * 60_000 + index * 1000).toISOString();
          return makeReceipt({
            id: `${caller}-${index}`, caller, ok: made.code === null, code: made.code, output: made.output, error: made.error,
            params: { note: made.note, code: made.code ?? 'none' }, started_at: at, finished_at: at,
          });
        });
        const { receipts: store } = db.store;
        for (const receipt of receipts) await store.save(receipt);
        const newest = [...receipts].reverse();

        for (const receipt of receipts) {
          expect(asText(await store.getText(receipt.id))).toBe(canonicalReceiptText(receipt));
          expect(await store.get(receipt.id)).toEqual(receipt);
          expect(await store.rawField(receipt.id, 'output')).toEqual(new TextEncoder().encode(receipt.output));
        }
        expect((await store.pageTexts({ caller }, 4 * 1024 * 1024)).texts.join('\n')).toBe(newest.map(canonicalReceiptText).join('\n'));
        expect(ids((await store.pageSummaries({ caller, limit: 10 }, 64 * 1024 * 1024)).summaries)).toEqual(ids(newest));

        const found = newest.filter((receipt) => holds(receipt, text));
        const bounds = { searchRows: 10_000, searchBytes: 64 * 1024 * 1024, limit: 51 };
        expect(ids(await store.searchSummaries({ caller, text, ...bounds }))).toEqual(ids(found));
        expect(ids(await store.list({ caller, text }))).toEqual(ids(found));
        // among the matches, a page from the second on
        expect(ids(await store.searchSummaries({ caller, text, ...bounds, limit: 2, offset: 1 }))).toEqual(ids(found.slice(1, 3)));
        const timedOut = newest.filter((receipt) => receipt.code === 'TIMEOUT');
        expect(ids(await store.searchSummaries({ caller, code: 'TIMEOUT', ...bounds }))).toEqual(ids(timedOut));
        expect(ids(await store.searchSummaries({ caller, code: 'TIMEOUT', text, ...bounds }))).toEqual(ids(timedOut.filter((receipt) => holds(receipt, text))));
        expect((await store.pageTexts({ caller, code: 'TIMEOUT' }, 64 * 1024 * 1024)).texts).toEqual(timedOut.map(canonicalReceiptText));
      }),
      { numRuns: runs(8) },
    );
  }, propertyTimeout(240_000));
});
