import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BaseCache } from '../../src/scanner/sources/base-cache.js';

// The delta-base cache finds its oldest entries through one iterator kept across calls (a new one per eviction stepped
// over every deleted entry's hole at the map's front: issue #18). Whatever the order of sets, gets, clears and packs
// forgotten, it must keep exactly what a plain least-recently-used list keeps, and count its bytes.

type Op = { op: 'set'; pack: string; offset: number; size: number } | { op: 'get'; pack: string; offset: number } | { op: 'clear' } | { op: 'forget'; pack: string };

const pack = fc.constantFrom('a', 'b');
const offset = fc.integer({ min: 0, max: 40 });
const ops = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ op: fc.constant('set' as const), pack, offset, size: fc.integer({ min: 0, max: 40 }) }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('get' as const), pack, offset }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('forget' as const), pack }) },
  ),
  { maxLength: 400 },
);

/** The model: a list, oldest first. */
class ListCache {
  entries: Array<{ key: string; size: number }> = [];
  constructor(readonly limit: number) {}
  get bytes(): number {
    return this.entries.reduce((sum, entry) => sum + entry.size, 0);
  }
  get(key: string): number | undefined {
    const at = this.entries.findIndex((entry) => entry.key === key);
    if (at < 0) return undefined;
    const [entry] = this.entries.splice(at, 1);
    this.entries.push(entry!);
    return entry!.size;
  }
  set(key: string, size: number): void {
    if (size > this.limit / 4 || this.entries.some((entry) => entry.key === key)) return;
    this.entries.push({ key, size });
    while (this.bytes > this.limit) this.entries.shift();
  }
}

describe('BaseCache', () => {
  it('keeps what a least-recently-used list keeps, in any order of sets, gets, clears and forgotten packs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120 }), ops, (limit, sequence: Op[]) => {
        const cache = new BaseCache(limit);
        const model = new ListCache(limit);
        for (const step of sequence) {
          if (step.op === 'set') {
            cache.set(step.pack, step.offset, { type: 'blob', content: Buffer.alloc(step.size, step.offset) });
            model.set(`${step.pack}:${step.offset}`, step.size);
          } else if (step.op === 'get') {
            expect(cache.get(step.pack, step.offset)?.content.length).toBe(model.get(`${step.pack}:${step.offset}`));
          } else if (step.op === 'clear') {
            cache.clear();
            model.entries = [];
          } else {
            cache.forgetPack(step.pack);
            model.entries = model.entries.filter((entry) => !entry.key.startsWith(`${step.pack}:`));
          }
          expect(cache.size).toBe(model.entries.length);
          expect(cache.bytes).toBe(model.bytes);
        }
        // and the same entries, oldest first: each read back moves it to the end in both
        for (const { key, size } of [...model.entries]) {
          const [name, at] = key.split(':');
          expect(cache.get(name!, Number(at))?.content.length).toBe(size);
        }
      }),
    );
  });

  it('after a pack is forgotten, the entries set next are evicted oldest first', () => {
    const cache = new BaseCache(8);
    const blob = { type: 'blob' as const, content: Buffer.alloc(2) };
    for (let at = 0; at < 5; at++) cache.set('a', at, blob);
    cache.forgetPack('a');
    for (let at = 0; at < 5; at++) cache.set('b', at, blob);
    expect(cache.get('b', 0)).toBeUndefined();
    expect([1, 2, 3, 4].map((at) => cache.get('b', at)?.content.length)).toEqual([2, 2, 2, 2]);
    expect(cache.bytes).toBe(8);
  });
});
