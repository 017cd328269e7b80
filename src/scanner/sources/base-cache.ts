import type { GitObject } from './pack-store.js';

/**
 * The bytes in memory of their own: a small object that zlib inflated or a delta made sits in Node's shared 8 KiB
 * pool, and keeping it kept the whole slab alive (a cold scan of 100,000 tools held ~14,000 slabs, ~114 MB, through
 * its delta bases and the objects a clone handed on). A copy for what is kept; what is read and let go stays where it is.
 */
export function ownMemory(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/**
 * Delta bases by pack and offset, least recently used dropped first once they hold more than `limit` bytes. The
 * oldest are found by one iterator kept across calls: a `Map` leaves a hole where an entry was deleted until it grows
 * again, and a new iterator for each eviction stepped over every hole at its front (the evicted ones, and those `get`
 * moved to the end): ~8,000 of them each time at 8 MiB of ~1 KB bases, 4% of a cold 100,000-tool scan's main thread
 * (issue #18). A `Map`'s iterator goes on over entries added after it was made, so it meets them in insertion order.
 */
export class BaseCache {
  private readonly map = new Map<string, GitObject>();
  private oldest: IterableIterator<[string, GitObject]> | undefined;
  bytes = 0;

  constructor(readonly limit: number) {}

  get size(): number {
    return this.map.size;
  }

  /** The bytes of the memory the kept bases' contents lie in. */
  memory(): number {
    let bytes = 0;
    for (const { content } of this.map.values()) bytes += content.buffer.byteLength;
    return bytes;
  }

  get(pack: string, offset: number): GitObject | undefined {
    const key = `${pack}:${offset}`;
    const value = this.map.get(key);
    if (value) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(pack: string, offset: number, value: GitObject): void {
    const key = `${pack}:${offset}`;
    // one base bigger than a quarter of the whole would push out everything else
    if (value.content.length > this.limit / 4 || this.map.has(key)) return;
    this.map.set(key, { type: value.type, content: ownMemory(value.content) });
    this.bytes += value.content.length;
    while (this.bytes > this.limit) {
      // an iterator that has ended stays ended: a new one once the map has been emptied (never while it holds entries)
      let next = (this.oldest ??= this.map.entries()).next();
      if (next.done) next = (this.oldest = this.map.entries()).next();
      if (next.done) break;
      const [key, old] = next.value;
      this.map.delete(key);
      this.bytes -= old.content.length;
    }
  }

  clear(): void {
    this.map.clear();
    this.oldest = undefined;
    this.bytes = 0;
  }

  forgetPack(pack: string): void {
    for (const [key, value] of this.map) {
      if (!key.startsWith(`${pack}:`)) continue;
      this.map.delete(key);
      this.bytes -= value.content.length;
    }
  }
}
