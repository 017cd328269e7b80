import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_SHALLOW, readShallow } from './clone-directory.js';
import { HISTORY_BOUND, HISTORY_BYTES, type ClaimHistory, type HistoryAnswer } from './claim-history.js';
import type { CloneRemote } from './clone-fetch.js';
import { indexPack } from './index-pack.js';
import { HOLD_BYTES } from './pack-entries.js';
import { ObjectReader } from './object-reader.js';
import { indexOffset, MAX_OBJECT_BYTES, PackStore } from './pack-store.js';
import { discoverUploadPack, fetchPackWithBoundary, type TransferLimits } from './upload-pack.js';
import { writeIndexedPack } from './write-index.js';

/**
 * What one fetch of history may bring: twice the trees a walk may read (commits and blobs come beside them); past it
 * the fetch fails and the clash fails closed. A 100,000-tool registry's `tools/` tree is ~4 MB a commit.
 */
export const HISTORY_PACK_LIMITS: TransferLimits = { maxBytes: 2 * HISTORY_BYTES, idleMs: 60_000, totalMs: 5 * 60_000 };

/** The first depth asked for: most clashes are a newcomer pushed lately, whose commit is a few back. */
const FIRST_DEPTH = 16;

/** How many fetches one walk may ask for (16, 64, 256 commits, then the walk's bound). */
const MAX_FETCHES = 4;

/**
 * `history`, asking for more of it where a walk stops at a shallow clone's edge with claims still undated (a remote is
 * cloned at depth 1, so a fresh instance has no history): `deepen` fetches the clone `depth` commits back from the
 * scanned one, four times the history held each time, at most to the walk's bound, and the walk runs again. It is
 * asked only at a clash no previous index settles, never on a scan's ordinary path. Where a fetch fails, or brings
 * nothing older, the answer's end says why (`fetch`), and the clash fails closed (name-history).
 */
export function fetchingHistory(history: ClaimHistory, deepen: (depth: number) => Promise<void>): ClaimHistory {
  return async (claims) => {
    let answer: HistoryAnswer = await history(claims);
    for (let fetches = 0; fetches < MAX_FETCHES; fetches++) {
      const end = answer.end;
      if (end?.reason !== 'shallow') return answer;
      // `deepen N` holds N commits back from the wanted one: the walk's bound is reached before the new edge (+2)
      const depth = Math.min(HISTORY_BOUND + 2, Math.max(FIRST_DEPTH, (end.depth + 1) * 4));
      try {
        await deepen(depth);
      } catch (error) {
        return { ...answer, end: { ...end, fetch: error instanceof Error ? error.message : String(error) } };
      }
      const next = await history(claims);
      if (next.end?.reason === 'shallow' && next.end.depth <= end.depth) return { ...next, end: { ...next.end, fetch: `the server sent no history before commit ${end.commit.slice(0, 12)} (asked for ${depth} commits)` } };
      answer = next;
    }
    return answer;
  };
}

/**
 * Fetches the clone's history `depth` commits back from `commit` (`deepen`, no `have` said: the server sends the
 * history whole, a delta on what the clone holds at most at its old edge), bounded by `HISTORY_PACK_LIMITS`, and moves the
 * clone's shallow boundary to where the server says it now is. The pack is written before the boundary moves: a
 * fetch cut short leaves the clone as it was, plus objects.
 */
export async function deepenClone({ store, http, address }: CloneRemote, commit: string, depth: number): Promise<void> {
  const advertisement = await discoverUploadPack(http, address.url, address.requestHeaders());
  const shallows = await readShallow(store.gitdir);
  const { pack, shallow, unshallow } = await fetchPackWithBoundary(http, advertisement.url, address.requestHeaders(advertisement.url), advertisement.capabilities, { want: commit, haves: [], shallows, depth }, HISTORY_PACK_LIMITS);
  // a server may still send a delta on what it knows the clone holds (the old edge's trees, unshallowed): read from the clone
  store.packs ??= new PackStore(store.gitdir);
  await store.packs.list();
  const objects = new ObjectReader(store.gitdir, store.packs);
  const indexed = await indexPack(pack, (oid) => objects.read(oid), MAX_OBJECT_BYTES, HOLD_BYTES, 0);
  // the new boundary is commits the pack brought (or the clone holds): any other id would be sent back by every later
  // fetch, and nothing checks it (review Z4, F2). Refused before anything is written: the clone stays as it was
  for (const oid of shallow) {
    const held = indexOffset(indexed.index, Buffer.from(oid, 'hex')) !== undefined || (await objects.read(oid, 'commit').then(() => true, () => false));
    if (!held) throw new Error(`the server's answer names ${oid} as the new shallow boundary, a commit its pack did not bring`);
  }
  const boundary = new Set(shallows);
  for (const oid of unshallow) boundary.delete(oid);
  for (const oid of shallow) boundary.add(oid);
  if (boundary.size > MAX_SHALLOW) throw new Error(`the server's answer leaves a shallow boundary of ${boundary.size} commits, more than ${MAX_SHALLOW}`);
  if (indexed.objects > 0) await writeIndexedPack(store.gitdir, indexed);
  const file = join(store.gitdir, 'shallow');
  // the whole history came (the server's first commit is within `depth`): git reads a clone without the file as whole
  if (boundary.size === 0) await rm(file, { force: true });
  else {
    await writeFile(`${file}.lock`, [...boundary].map((oid) => `${oid}\n`).join(''), 'latin1');
    await rename(`${file}.lock`, file);
  }
  // the snapshot's reader lists the packs again, the new one with them
  await store.packs.list();
}
