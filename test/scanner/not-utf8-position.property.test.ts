import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { runs } from '../helpers/property-runs.js';

// userZ7, F5: a TOOL.hdlp that is not UTF-8 was told at 1:1, wherever the bad byte sat. Whatever UTF-8 text comes
// before it, and whatever follows, the error is at the line and column of the first byte that is not UTF-8 (a column
// counted as a YAML position counts it), and a file that is all UTF-8 is never told so.

// what no UTF-8 text holds: a lone continuation byte, a byte never used, an overlong form, a surrogate, a code point past
// U+10FFFF, a sequence cut short by an ASCII byte
const BAD = fc.constantFrom([0x80], [0xbf], [0xc0, 0xaf], [0xc1], [0xe4, 0x68], [0xf5], [0xff], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82, 0x41]);

const parse = (content: Uint8Array) => parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'x', content });

describe('parseToolDefinition of a file that is not UTF-8 (property-based)', () => {
  it('points at the first bad byte, whatever text comes before and whatever bytes after', () => {
    const text = fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom('\n', '\r\n', 'name: demo\n', 'é', '天气', '😀')), { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, BAD, fc.uint8Array({ maxLength: 16 }), (before, bad, after) => {
        const content = Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(bad), Buffer.from(after)]);
        const [diagnostic] = parse(content).diagnostics;
        // a byte-order mark is not text: the file is read without it, as every other position counts
        const lines = before.replace(/^\uFEFF/, '').split('\n');
        expect(diagnostic).toMatchObject({ code: 'NOT_UTF8', line: lines.length, column: lines.at(-1)!.length + 1 });
        expect(diagnostic!.message).toMatch(/^TOOL\.hdlp is not UTF-8 text; save it as UTF-8 \(/);
      }),
      { numRuns: runs(300) },
    );
  });

  it('never tells a file that is all UTF-8 so', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(parse(Buffer.from(text, 'utf8')).diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('NOT_UTF8');
      }),
      { numRuns: runs(300) },
    );
  });
});
