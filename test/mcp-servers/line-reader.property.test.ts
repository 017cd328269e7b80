import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineReader } from '../../src/mcp-servers/stdio-transport.js';

// What a stdio MCP server writes is attacker-controlled text, cut into chunks however the pipe cuts it: the lines read
// must be the text's lines whatever the cuts, and a line past the limit must be refused however it arrives.

describe('LineReader', () => {
  it('reads the lines of a stream whatever the chunks it comes in', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('\n'), fc.string({ maxLength: 12 }), fc.constant('é\r\n')), { maxLength: 30 }), fc.array(fc.nat(40), { maxLength: 10 }), (pieces, cuts) => {
        const bytes = Buffer.from(pieces.join(''), 'utf8');
        const reader = new LineReader(1024);
        const lines: string[] = [];
        let at = 0;
        for (const cut of [...cuts, bytes.length]) {
          const end = Math.min(bytes.length, at + cut);
          for (const line of reader.push(bytes.subarray(at, end))) lines.push(line.toString('utf8'));
          at = end;
        }
        const text = bytes.toString('utf8');
        expect(lines).toEqual(text.split('\n').slice(0, -1));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a line past its limit, whether it comes whole or a chunk at a time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 20 }), (limit, chunk) => {
        const line = Buffer.from(`${'x'.repeat(limit + 1)}\n`);
        const reader = new LineReader(limit);
        expect(() => {
          for (let at = 0; at < line.length; at += chunk) reader.push(line.subarray(at, at + chunk));
        }).toThrow(`larger than ${limit} bytes`);
        expect(new LineReader(limit).push(Buffer.from(`${'x'.repeat(limit)}\n`))).toHaveLength(1);
      }),
    );
  });
});
