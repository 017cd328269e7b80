import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { receiptPiecesSeen, receiptSeen, receiptTextSeen, type Receipt } from '../../src/core/index.js';
import { canonicalReceiptText } from '../../src/store/index.js';
import { runs } from '../helpers/property-runs.js';

// Review Z7, Z7-1: GET /v1/receipts and /v1/receipts/:id send a receipt's stored text as it is (a receipt may hold
// 96 MB), so the source of one shown to a non-admin is replaced in the text, found without parsing the rest. Its
// params (the agent's) and structured content (a server's) can hold anything, a `"source"` member of their own among
// it, and its output any text: the text's view must be exactly the canonical text of the receipt's view.
const HOST = 'build-host-7.internal';
const URL = 'http://10.1.2.3:3900';

// the pieces an adversary would use to fool a scan of the text
const NASTY = ['"', '\\', '\\"', '\\\\', '","source":{"host":"decoy"}', ',"duration_ms":1,', '{', '}', '[', ']', ':', ',', 'source', 'é', '\u0000', '\n', '"source":'];
const nastyString = fc.array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 4 })), { maxLength: 8 }).map((parts) => parts.join(''));
const decoySource = fc.record({ host: nastyString, repository: nastyString, url: nastyString });
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, nastyString, fc.integer(), fc.boolean(), fc.constant(null), decoySource, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.oneof(fc.constantFrom('source', 'duration_ms', 'host'), nastyString), tie('value'), { maxKeys: 3 })),
})).value;

const receipt: fc.Arbitrary<Receipt> = fc.record({
  ok: fc.boolean(), output: nastyString, error: fc.option(nastyString, { nil: null }), stderr: nastyString, params: fc.dictionary(fc.oneof(fc.constant('source'), nastyString), value, { maxKeys: 4 }),
  structured: fc.option(fc.dictionary(fc.oneof(fc.constant('source'), nastyString), value, { maxKeys: 3 }), { nil: undefined }),
  repository: fc.constantFrom('/srv/registries/tools-repo', '/tmp/hldp-policy-x/repo/', 'https://forgejo.example/team/tools.git', 'https://forgejo.example/team/tools.git?ref=main#top'),
  served: fc.boolean(), sourced: fc.nat(9),
}).map(({ ok, output, error, stderr, params, structured, repository, served, sourced }) => ({
  ok, tool: 'echo', method: 'run', output, error, duration_ms: 3, id: 'call_1', executor: 'shell', commit: 'abc', params,
  started_at: '2026-12-06T08:00:00.000Z', finished_at: '2026-12-06T08:00:00.003Z', confirmation: null, caller: 'bot', session: null, approval: null,
  stderr, code: null, exit_code: 0, signal: null, timed_out: false, output_bytes: 1, cut_bytes: 0,
  ...(structured ? { structured_content: structured } : {}),
  // one in ten as a receipt kept before receipts named their source
  ...(sourced === 0 ? {} : { source: { host: HOST, repository, ...(served ? { url: URL } : {}) } }),
}) as Receipt);

describe('receiptTextSeen', () => {
  it("gives a non-admin exactly the canonical text of the receipt's view, as text and as bytes; an admin the stored text", () => {
    fc.assert(fc.property(receipt, (whole) => {
      const text = canonicalReceiptText(whole);
      const expected = canonicalReceiptText(receiptSeen(whole, false));
      expect(receiptTextSeen(text, false)).toBe(expected);
      expect(Buffer.from(receiptTextSeen(Buffer.from(text, 'utf8'), false)).toString('utf8')).toBe(expected);
      expect(receiptTextSeen(text, true)).toBe(text);
      const seen = JSON.parse(expected) as Receipt;
      expect(seen.params).toEqual(whole.params);
      if (whole.source === undefined) return;
      expect(seen.source!.host).toBeUndefined();
      expect(seen.source!.url).toBeUndefined();
      expect(seen.source!.repository).not.toContain('/srv/');
      expect(seen.source!.repository).not.toContain('?');
      expect(seen.source!.withheld).toContain('an administrator can see them');
    }), { numRuns: runs(1500) });
  });

  // Review Z12, finding 3: the walk from the end crossed a long stderr or structured_content a character at a time on
  // the event loop (0.5-2 s for 16 MB); past its budget the source is found from the front, which must give the same view
  it('gives the same view when what follows the source is long (stderr full of quotes, a large structured_content)', () => {
    const padded = fc.tuple(receipt, fc.constantFrom('stderr', 'structured'), fc.constantFrom('"', '\\"', 'x', '{"source":{"host":"decoy"}}')).map(([whole, where, unit]) => {
      const long = unit.repeat(Math.ceil(300_000 / unit.length));
      return (where === 'stderr' ? { ...whole, stderr: `${whole.stderr}${long}` } : { ...whole, structured_content: { ...(whole.structured_content as object), rows: [long, { source: { host: 'decoy' } }] } }) as Receipt;
    });
    fc.assert(fc.property(padded, (whole) => {
      const text = canonicalReceiptText(whole);
      const expected = canonicalReceiptText(receiptSeen(whole, false));
      expect(receiptTextSeen(text, false)).toBe(expected);
      expect(Buffer.from(receiptTextSeen(Buffer.from(text, 'utf8'), false)).toString('utf8')).toBe(expected);
      // found, not parsed whole: the stored bytes are sent around the replaced source, not a text made again
      const bytes = Buffer.from(text, 'utf8');
      const pieces = receiptPiecesSeen(bytes, false);
      if (whole.source !== undefined) expect((pieces[0] as Uint8Array).buffer).toBe(bytes.buffer);
    }), { numRuns: runs(60) });
  });

  // CI-like run of fc25 (seed 11111, 10× the runs): a receipt kept before receipts named their source, whose long
  // structured_content holds a decoy "source" and a member named by a number, was parsed whole and written again with
  // JSON.stringify, which moved "0" ahead of "" — not the stored text, though there was nothing to withhold
  it('sends a receipt without a source as stored when its long structured_content holds a "source" and a member named by a number', () => {
    const whole = { ok: false, tool: 'echo', method: 'run', output: '', error: null, duration_ms: 3, id: 'call_1', params: {}, stderr: '', timed_out: false, started_at: 's',
      structured_content: { '0': 0, '': 0, rows: ['"'.repeat(300_000), { source: { host: 'decoy' } }] } } as unknown as Receipt;
    const text = canonicalReceiptText(whole);
    expect(text).toContain('"structured_content":{"":0,"0":0,');
    expect(receiptTextSeen(text, false)).toBe(text);
    expect(Buffer.from(receiptTextSeen(Buffer.from(text, 'utf8'), false)).toString('utf8')).toBe(text);
  });

  // Review Z9, Z9-6: the source was found by a scan from the start, over the whole output, and the text built again
  // whole: 66-89 ms of the event loop per read of a 96 MiB receipt by one who is no admin. It is found from the end now,
  // and the stored text is sent in its own slices around the replaced source.
  it("finds the source without reading the output, and keeps the stored text's own bytes around it (no copy)", () => {
    const whole = { ok: true, tool: 'echo', method: 'run', output: 'x', error: null, duration_ms: 3, id: 'call_1', params: { source: { host: 'decoy' } }, stderr: 'e', timed_out: false, started_at: 's', source: { host: HOST, repository: '/srv/registries/tools-repo', url: URL } } as unknown as Receipt;
    const text = canonicalReceiptText(whole);
    const expected = canonicalReceiptText(receiptSeen(whole, false));
    // the output's place filled with what is no JSON at all, a scan over it would take for the receipt's members
    const junk = '"}],"duration_ms":1,"source":{"host":"decoy","repository":"/srv/decoy"},"x":"\\'.repeat(2_000);
    const at = text.indexOf('"output":"x"') + '"output":"'.length;
    const broken = `${text.slice(0, at)}${junk}${text.slice(at + 1)}`;
    const seen = `${expected.slice(0, at)}${junk}${expected.slice(at + 1)}`;
    expect(receiptTextSeen(broken, false)).toBe(seen);
    const bytes = Buffer.from(broken, 'utf8');
    const pieces = receiptPiecesSeen(bytes, false);
    expect(Buffer.concat(pieces as Uint8Array[]).toString('utf8')).toBe(seen);
    // the first and last pieces are the stored bytes themselves, not a copy
    expect((pieces[0] as Uint8Array).buffer).toBe(bytes.buffer);
    expect((pieces[2] as Uint8Array).buffer).toBe(bytes.buffer);
    const asStored = receiptPiecesSeen(bytes, true);
    expect(asStored).toHaveLength(1);
    expect(asStored[0]).toBe(bytes);
  });

  it('names the repository by its folder, or by its remote URL without credentials, query or fragment', () => {
    const base = { ok: true, tool: 't', method: 'm', output: '', error: null, duration_ms: 0 } as unknown as Receipt;
    const seen = (repository: string) => receiptSeen({ ...base, source: { host: HOST, repository, url: URL } }, false).source;
    expect(seen('/srv/registries/native-repo/')).toEqual({ repository: 'native-repo', withheld: expect.stringContaining("the folder's name is kept") });
    expect(seen('https://forgejo.example/team/tools.git?x=1#y')).toEqual({ repository: 'https://forgejo.example/team/tools.git', withheld: 'the host and URL of the gateway that made it: an administrator can see them' });
    expect(seen('https://user:secret@forgejo.example/team/tools.git')!.repository).toBe('https://forgejo.example/team/tools.git');
  });
});
