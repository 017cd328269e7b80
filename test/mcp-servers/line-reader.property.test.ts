import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineReader, type LineEvent } from '../../src/mcp-servers/line-reader.js';
import { runs } from '../helpers/property-runs.js';

// What a stdio MCP server writes is attacker-controlled text, cut into chunks however the pipe cuts it: the lines read
// must be the text's lines whatever the cuts, and a line past the bound must be skipped however it arrives, never held
// past the bound, and the lines after it read as before (review S, S9: a 60 MiB line was held whole).

/** Pushes `bytes` to `reader` in pieces of the given sizes (the rest in one), checking what it holds after each. */
function readAll(reader: LineReader, bytes: Buffer, cuts: number[], bound: () => number): LineEvent[] {
  const events: LineEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    const end = Math.min(bytes.length, at + cut);
    events.push(...reader.push(bytes.subarray(at, end)));
    expect(reader.buffered).toBeLessThanOrEqual(bound());
    at = end;
  }
  return events;
}

/** A line's text without a newline: short ones of any characters, or one of `length` bytes. */
const lineText = fc.oneof(
  fc.string({ maxLength: 12 }).map((text) => text.replaceAll('\n', ' ')),
  fc.constant('é\r'),
  fc.integer({ min: 0, max: 200 }).map((length) => 'x'.repeat(length)),
);

describe('LineReader', () => {
  it('reads every line within the bound exactly, and reports each longer one once, with its size, holding none of it past the bound', () => {
    fc.assert(
      fc.property(fc.array(lineText, { maxLength: 30 }), fc.integer({ min: 0, max: 120 }), fc.array(fc.nat(70), { maxLength: 12 }), fc.boolean(), (lines, limit, cuts, ended) => {
        const bytes = Buffer.from(lines.join('\n') + (ended && lines.length > 0 ? '\n' : ''), 'utf8');
        const events = readAll(new LineReader(() => limit), bytes, cuts, () => limit);
        // what the text says: its ended lines, each whole or passed-then-skipped; a last line not ended says only that it passed
        const expected: LineEvent[] = [];
        lines.forEach((text, index) => {
          const size = Buffer.byteLength(text);
          const isEnded = ended || index < lines.length - 1;
          if (size <= limit) {
            if (isEnded) expected.push({ kind: 'line', line: Buffer.from(text) });
            return;
          }
          expected.push({ kind: 'passed', line: index, bytes: expect.any(Number) as unknown as number, bound: limit });
          if (isEnded) expected.push({ kind: 'skipped', line: index, bytes: size, bound: limit });
        });
        expect(events).toEqual(expected);
        // where it passed: past the bound, and no further than the bytes of the line that had come
        for (const event of events) if (event.kind === 'passed') expect(event.bytes).toBeGreaterThan(limit);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('holds a line to the bound asked at each chunk, as the calls waiting come and go', () => {
    fc.assert(
      fc.property(fc.array(lineText, { maxLength: 20 }), fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 1, maxLength: 20 }), fc.array(fc.nat(50), { maxLength: 20 }), (lines, bounds, cuts) => {
        let asked = 0;
        let now = bounds[0]!;
        const bound = (): number => (now = bounds[asked++ % bounds.length]!);
        const reader = new LineReader(bound);
        const events = readAll(reader, Buffer.from(lines.map((text) => `${text}\n`).join(''), 'utf8'), cuts, () => now);
        const kept = events.filter((event) => event.kind === 'line').map((event) => (event as { line: Buffer }).line.toString('utf8'));
        const skipped = events.filter((event) => event.kind === 'skipped').length;
        // every line comes out, whole or skipped, in order; a kept one is one of the text's lines, a skipped one was reported passed first
        expect(kept.length + skipped).toBe(lines.length);
        expect(lines).toEqual(expect.arrayContaining(kept));
        expect(events.filter((event) => event.kind === 'passed').length).toBe(skipped);
      }),
      { numRuns: runs(500) },
    );
  });

  it('skips a line past the bound whether it comes whole or a chunk at a time, and reads the next line after it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 20 }), (limit, chunk) => {
        const stream = Buffer.from(`${'x'.repeat(limit + 1)}\n${'y'.repeat(limit)}\n`);
        const reader = new LineReader(() => limit);
        const events: LineEvent[] = [];
        for (let at = 0; at < stream.length; at += chunk) events.push(...reader.push(stream.subarray(at, at + chunk)));
        expect(events).toEqual([
          { kind: 'passed', line: 0, bytes: expect.any(Number), bound: limit },
          { kind: 'skipped', line: 0, bytes: limit + 1, bound: limit },
          { kind: 'line', line: Buffer.from('y'.repeat(limit)) },
        ]);
      }),
    );
  });
});
