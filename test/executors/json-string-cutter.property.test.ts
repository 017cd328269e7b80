import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundBytes } from '../../src/executors/index.js';
import { JsonStringCutter } from '../../src/executors/json-string-cutter.js';
import { runs } from '../helpers/property-runs.js';

// The cutter reads an MCP server's answer, hostile input, as it streams by. Whatever the JSON and however it is cut into
// chunks, what it hands on is JSON whose long strings (keys too) are cut exactly as a tool's output is cut to its cap,
// every other byte as it came.
const CAP = 24;
const RAW_LIMIT = 60;

const rawLength = (text: string): number => Buffer.byteLength(JSON.stringify(text)) - 1;

function expected(value: unknown, cuts: { cutBytes: number }): unknown {
  const cut = (text: string): string => {
    if (rawLength(text) <= RAW_LIMIT) return text;
    const rendered = boundBytes(text, CAP);
    cuts.cutBytes += rendered.cutBytes;
    return rendered.text;
  };
  if (typeof value === 'string') return cut(value);
  if (Array.isArray(value)) return value.map((item) => expected(item, cuts));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [cut(key), expected(item, cuts)]));
  return value;
}

const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: fc.constantFrom('\u0000', '"', '\\', '\ud83d', '\ude00', 'é', 'x', '\n'), maxLength: 120 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.boolean(), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
})).value;

describe('JsonStringCutter', () => {
  it('hands on JSON whose long strings are cut as a tool\'s output is, however the text is chunked', () => {
    fc.assert(
      fc.property(json, fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }), fc.boolean(), (value, sizes, pretty) => {
        const wire = Buffer.from(JSON.stringify(value, null, pretty ? 1 : undefined) ?? 'null');
        const cutter = new JsonStringCutter(CAP, RAW_LIMIT);
        const out: Buffer[] = [];
        let at = 0;
        for (let index = 0; at < wire.length; index += 1) {
          const size = sizes[index % sizes.length]!;
          out.push(Buffer.from(cutter.push(wire.subarray(at, at + size))));
          at += size;
        }
        const cuts = { cutBytes: 0 };
        expect(JSON.parse(Buffer.concat(out).toString())).toEqual(expected(value, cuts));
        expect(cutter.cuts.cutBytes).toBe(cuts.cutBytes);
      }),
      { numRuns: runs(400) },
    );
  });

  it('passes JSON without long strings byte for byte', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 3 }), (wireText) => {
        const wire = Buffer.from(wireText);
        const cutter = new JsonStringCutter(1024, 6 * 1024);
        expect(Buffer.from(cutter.push(wire)).equals(wire)).toBe(true);
      }),
    );
  });
});
