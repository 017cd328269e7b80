import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { ownMemory } from './base-cache.js';
import { applyDelta } from './git-delta.js';
import { Entry, Held, HOLD_BYTES, inflateAt } from './pack-entries.js';
import { crc32, objectId, sha1 } from './pack-hashes.js';
import { entryAt, MAX_CHAIN, MAX_OBJECT_BYTES, OFS_DELTA, REF_DELTA, TYPES, type GitObject, type ObjectType } from './pack-store.js';
import { Slices } from './slices.js';
import { ThinPackRefusal } from './thin-pack-refusal.js';
import { writeIndex, type IndexedPack } from './write-index.js';

/**
 * How much of a fetch's resolved objects `IndexedPack.received` keeps (a one-file commit's are ~0.4 MB at 10,000
 * tools), each counted with `KEPT_OVERHEAD_BYTES` beside its content.
 */
export const KEEP_BYTES = 16 * 1024 * 1024;

/**
 * What keeping one object costs beside its content (its object, its Buffer, its id and its map slot, measured ~250
 * bytes): counted against `KEEP_BYTES`, which counted content alone and so kept 110,790 objects of a 100,000-tool
 * clone (~30 MB of heap and their buffers held through the whole scan, for 16 MB counted).
 */
export const KEPT_OVERHEAD_BYTES = 256;

/**
 * Indexes a received pack as `git index-pack --fix-thin` does: every entry inflated (Node's zlib, which says where
 * each stream ends), its deltas resolved from their bases (in the pack, or for a thin pack's `ref-delta`s read by
 * `readOutside`, then appended whole so the pack stands alone, as git requires), each object's id computed, and the
 * index written. Throws on anything that does not add up: a checksum, a size, a base that is nowhere, a chain too long,
 * or an object past `maxObjectBytes` (checked before it is inflated or made: a server's few kilobytes of delta can state
 * gigabytes). Holds at most `holdBytes` of inflated bytes besides the pack (see `HOLD_BYTES`).
 */
export async function indexPack(received: Buffer, readOutside: (oid: string) => Promise<GitObject>, maxObjectBytes = MAX_OBJECT_BYTES, holdBytes = HOLD_BYTES, keepBytes = KEEP_BYTES): Promise<IndexedPack> {
  if (received.length < 32 || received.toString('latin1', 0, 4) !== 'PACK') throw new Error('not a git pack (no PACK signature)');
  const version = received.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`git pack version ${version} is not supported`);
  const trailer = received.length - 20;
  if (!sha1(received.subarray(0, trailer)).equals(received.subarray(trailer))) throw new Error('corrupt pack: its checksum does not match (truncated in transfer?)');
  const count = received.readUInt32BE(8);
  if (count > MAX_PACK_OBJECTS) throw new Error(`fetched pack: ${count} objects, over the ${MAX_PACK_OBJECTS} a pack may bring here`);
  const held = new Held(received, trailer, maxObjectBytes, holdBytes);
  const slices = new Slices();
  const entries: Entry[] = [];
  let offset = 12;
  for (let index = 0; index < count; index++) {
    if (slices.due()) await slices.letGo();
    const header = entryAt(received, offset);
    const type = TYPES[header.type];
    if (!(header.size <= MAX_STREAMED_BYTES)) throw new Error(`fetched pack: an object of ${header.size} bytes at ${offset}, over the ${MAX_STREAMED_BYTES} bytes a repository's file may have here`);
    if (header.size > maxObjectBytes && type !== undefined) {
      // a whole object over what a read may hold (a large file beside `tools/`; git stores files over its 512 MiB
      // bigFileThreshold whole) is hashed as it streams out of zlib and never held: it can be no delta's base here
      held.made(header.size + ENTRY_OVERHEAD_BYTES);
      const { oid, consumed } = await hashStreamed(received.subarray(header.data, trailer), type, header.size, offset);
      const end = header.data + consumed;
      const entry = Entry.whole(offset, end, crc32(received.subarray(offset, end)), type, header.data, header.size, oid);
      entry.streamed = true;
      entries.push(entry);
      offset = end;
      continue;
    }
    if (!(header.size <= maxObjectBytes)) throw new Error(`fetched pack: a delta of ${header.size} bytes at ${offset}, over the ${maxObjectBytes} bytes an object read may hold`);
    held.made(header.size + ENTRY_OVERHEAD_BYTES);
    const { data, consumed } = inflateAt(received, header.data, trailer, header.size, offset);
    const end = header.data + consumed;
    const entry = new Entry(offset, end, crc32(received.subarray(offset, end)), header.type, header.data, header.size, header.baseOffset, header.baseOid);
    if (type !== undefined) {
      // a whole object's id now, while its content is at hand: it need not be held unless something is a delta on it
      entry.type = type;
      entry.oid = objectId(type, data);
    }
    held.keep(entry, data);
    entries.push(entry);
    offset = end;
  }
  if (offset !== trailer) throw new Error(`corrupt pack: ${trailer - offset} bytes after its ${count} objects`);
  const { outside, kept } = await resolveAll(entries, readOutside, held, slices, keepBytes);
  return writeIndex(received, entries, outside, kept, slices);
}

/**
 * Resolves every entry from its base, bases first (a worklist from the whole objects, so a chain in any order is
 * linear), and keeps up to `keepBytes` of the resolved objects to hand on.
 */
async function resolveAll(entries: Entry[], readOutside: (oid: string) => Promise<GitObject>, held: Held, slices: Slices, keepBytes: number): Promise<{ outside: GitObject[]; kept: Map<string, GitObject> }> {
  // in turns, as the rest: 2 million tiny objects held the event loop here and in `writeIndex` for 48 s
  const offsets = new Set<number>();
  for (const entry of entries) {
    if (slices.due()) await slices.letGo();
    offsets.add(entry.offset);
  }
  const waitingOnOffset = new Map<number, Entry[]>();
  const waitingOnOid = new Map<string, Entry[]>();
  const ready: Entry[] = [];
  for (const entry of entries) {
    if (slices.due()) await slices.letGo();
    if (entry.kind === OFS_DELTA) {
      if (!offsets.has(entry.baseOffset!)) throw new Error(`corrupt pack: a delta at ${entry.offset} names no entry at ${entry.baseOffset} as its base`);
      push(waitingOnOffset, entry.baseOffset!, entry);
    } else if (entry.kind === REF_DELTA) {
      push(waitingOnOid, entry.baseOid!, entry);
    } else {
      if (!TYPES[entry.kind]) throw new Error(`corrupt pack: unknown object type ${entry.kind} at ${entry.offset}`);
      ready.push(entry);
    }
  }
  const kept = new Map<string, GitObject>();
  let keptBytes = 0;
  const keep = (entry: Entry, size: number, content: () => Buffer): void => {
    if (keptBytes + size + KEPT_OVERHEAD_BYTES > keepBytes || kept.has(entry.oid!)) return;
    keptBytes += size + KEPT_OVERHEAD_BYTES;
    kept.set(entry.oid!, { type: entry.type!, content: ownMemory(content()) });
  };
  // whole objects first, in pack order (as `received` kept them before: the fetch's new trees and blobs)
  for (const entry of ready) if (!entry.streamed) keep(entry, entry.size, () => held.dataOf(entry));
  const resolveFrom = async (list: Entry[]): Promise<void> => {
    while (list.length > 0) {
      if (slices.due()) await slices.letGo();
      const entry = list.pop()!;
      let content: Buffer | undefined;
      const base = entry.base;
      if (base !== undefined && entry.oid === undefined) {
        // made when it is its turn, not when its base was: a base with a thousand deltas held them all at once
        content = applyDelta(held.dataOf(entry), held.contentOf(base), held.maxObjectBytes);
        held.made(content.length);
        held.drop(entry);
        entry.type = base.type;
        entry.oid = objectId(base.type!, content);
        entry.depth = base.depth + 1;
        if (--base.pending === 0) held.release(base);
        const made = content;
        keep(entry, made.length, () => made);
      }
      const children = take(waitingOnOffset, entry.offset, take(waitingOnOid, entry.oid!, NONE));
      if (children.length === 0) {
        if (base === undefined) held.drop(entry);
        continue;
      }
      if (entry.streamed) throw new Error(`fetched pack: a delta at ${children[0]!.offset} on an object over the ${held.maxObjectBytes} bytes a read may hold`);
      if (entry.depth! >= MAX_CHAIN) throw new Error(`corrupt pack: a delta chain longer than ${MAX_CHAIN}`);
      entry.pending = children.length;
      content ??= held.contentOf(entry);
      // a whole object's data becomes the content its deltas are made from
      if (base === undefined) held.drop(entry);
      held.hold(entry, content);
      for (const child of children) {
        child.base = entry;
        list.push(child);
      }
    }
  };
  await resolveFrom(ready);
  // what is left waits on objects outside the pack (a thin pack), or on nothing at all
  const outside: GitObject[] = [];
  let appendedBytes = 0;
  for (const oid of [...waitingOnOid.keys()]) {
    // a ref-delta base inside the pack, resolved meanwhile through an outside one, has had its deltas resolved
    if (!waitingOnOid.has(oid)) continue;
    const object = await readOutside(oid);
    // held to the end and appended whole: counted (16 ref-deltas of 0.7 KB on held 60 MiB blobs held 3 GB and wrote 960 MB a fetch)
    appendedBytes += object.content.length;
    if (!(appendedBytes <= MAX_APPENDED_BYTES)) throw new ThinPackRefusal(`fetched pack: its deltas are on ${appendedBytes} bytes of objects from outside it, over the ${MAX_APPENDED_BYTES} a fetch may append here`);
    held.made(object.content.length + ENTRY_OVERHEAD_BYTES);
    outside.push(object);
    const base = Entry.whole(-1, -1, 0, object.type, -1, object.content.length, oid);
    base.outside = object.content;
    await resolveFrom([base]);
  }
  const unresolved = entries.find((entry) => entry.oid === undefined);
  if (unresolved) throw new Error(`corrupt pack: the delta at ${unresolved.offset} has no base (its chain leads back to itself)`);
  return { outside, kept };
}

/**
 * The most objects a pack may bring (a 100,000-tool clone's holds ~200,000): indexing keeps ~570 bytes of heap an
 * object whatever its size, and 9 million empty blobs (158 KB of gzip on the wire) aborted the process out of heap.
 * Past it the pack is refused from its header, before an entry is read.
 */
export const MAX_PACK_OBJECTS = 1_000_000;

/** What each entry counts against the make limit beside its inflated size: what holding it costs, so a pack of empty objects is bounded by its budget too. */
export const ENTRY_OVERHEAD_BYTES = 512;

/**
 * What a thin pack's bases from outside it may come to in all (held until the pack is written, then appended to it
 * uncompressed): an honest fetch's are the old versions of what it changed (~4 MB at 100,000 tools), or one large
 * file's; past it the fetch is refused (`ThinPackRefusal`: the remote source then clones afresh, whose pack needs none).
 */
export const MAX_APPENDED_BYTES = 2 * MAX_OBJECT_BYTES;

/** The largest whole object a pack may bring (hashed as it streams, never held): past it, the clone or fetch is refused. */
export const MAX_STREAMED_BYTES = 2 * 1024 * 1024 * 1024;

/** A whole object's id, its content inflated a chunk at a time and hashed as it comes; and how many pack bytes its zlib stream took. */
async function hashStreamed(stream: Buffer, type: ObjectType, size: number, offset: number): Promise<{ oid: string; consumed: number }> {
  const hash = createHash('sha1').update(`${type} ${size}\0`, 'latin1');
  const inflate = zlib.createInflate({ chunkSize: 64 * 1024 });
  let inflated = 0;
  inflate.on('data', (chunk: Buffer) => {
    inflated += chunk.length;
    // more than its header says: stop now, not after gigabytes
    if (inflated > size) inflate.destroy(new Error(`corrupt pack: an object at ${offset} inflates past the ${size} bytes its header says`));
    else hash.update(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    inflate.once('end', resolve);
    inflate.once('error', reject);
    inflate.end(stream);
  });
  if (inflated !== size) throw new Error(`corrupt pack: an object at ${offset} inflated to ${inflated} bytes where its header says ${size}`);
  return { oid: hash.digest('hex'), consumed: inflate.bytesWritten };
}

function push<K>(map: Map<K, Entry[]>, key: K, entry: Entry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}

/** The entries waiting on `key`, after `also` (none: `NONE`, shared and never written). */
function take<K>(map: Map<K, Entry[]>, key: K, also: Entry[]): Entry[] {
  const list = map.get(key);
  if (list === undefined) return also;
  map.delete(key);
  // one at a time: a spread of 200,000 waiting ref-deltas overflows the stack
  for (const entry of also) list.push(entry);
  return list;
}

const NONE: Entry[] = [];
