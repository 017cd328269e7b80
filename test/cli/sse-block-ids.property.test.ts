import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockIds } from '../../src/cli/sse-block-ids.js';

// one block of a stream as the gateway (or a proxy: CRLF, comments, retry) may send it
const block = fc.record({
  id: fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: undefined }),
  event: fc.option(fc.constantFrom('receipt.stored', 'reset', 'scan.failed'), { nil: undefined }),
  data: fc.option(fc.string({ unit: 'grapheme', maxLength: 300 }).map((text) => text.replace(/[\r\n]/g, ' ')), { nil: undefined }),
  comment: fc.boolean(),
  crlf: fc.boolean(),
});
type Block = typeof block extends fc.Arbitrary<infer T> ? T : never;

function frame(parts: Block): string {
  const lines = [...(parts.comment ? [': keep-alive'] : []), ...(parts.id === undefined ? [] : [`id: ${parts.id}`]), ...(parts.event ? [`event: ${parts.event}`] : []), ...(parts.data === undefined ? [] : [`data: ${parts.data}`])];
  if (lines.length === 0) lines.push('retry: 2000');
  const end = parts.crlf ? '\r\n' : '\n';
  return lines.map((line) => line + end).join('') + end;
}

// review userZ8, H1: the ids of a stream, blocks without data included, read from any cut of it into chunks
describe('blockIds', () => {
  it('calls back with each id-bearing block\'s id in stream order, whatever the chunks, agreeing with the parser on blocks with data', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), (blocks, cuts) => {
        const text = blocks.map(frame).join('');
        const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((start, index, all) => text.slice(start, all[index + 1] ?? text.length));
        const seen: number[] = [];
        const dispatched: Array<string | undefined> = [];
        const feed = blockIds((id) => seen.push(id));
        const parser = createParser({ onEvent: (message) => dispatched.push(message.id) });
        for (const chunk of chunks) {
          parser.feed(chunk);
          feed(chunk);
        }
        expect(seen).toEqual(blocks.filter((parts) => parts.id !== undefined).map((parts) => parts.id));
        expect(dispatched.filter((id) => id !== undefined).map(Number)).toEqual(blocks.filter((parts) => parts.id !== undefined && parts.data !== undefined).map((parts) => parts.id));
      }),
    );
  });

  it('moves nothing for a block cut off before its blank line', () => {
    const seen: number[] = [];
    const feed = blockIds((id) => seen.push(id));
    feed('retry: 2000\n\nid: 7\n');
    expect(seen).toEqual([]);
    feed('\nid: 8\nevent: receipt.stored\ndata: {}\n');
    expect(seen).toEqual([7]);
  });
});
