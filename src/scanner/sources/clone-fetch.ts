import type { HttpClient } from 'isomorphic-git';
import { readShallow } from './clone-directory.js';
import type { ObjectStore } from './git-snapshot.js';
import { indexPack } from './index-pack.js';
import { ObjectReader } from './object-reader.js';
import { indexOffset, PackStore, type GitObject } from './pack-store.js';
import type { RemoteAddress } from './remote-address.js';
import { ThinPackRefusal } from './thin-pack-refusal.js';
import { discoverUploadPack, fetchPack, type RefAdvertisement } from './upload-pack.js';
import { writeIndexedPack } from './write-index.js';

/** The clone a fetch adds to, and the remote it asks. */
export interface CloneRemote {
  store: ObjectStore;
  http: HttpClient;
  address: RemoteAddress;
}

/** What one fetch into the clone asks for: the branch's head on the server, the head the clone holds, and the branch's name. */
export interface CloneFetch {
  remote: string;
  local: string;
  branch: string;
}

/**
 * Fetches `remote` ourselves rather than through isomorphic-git: a thin pack (only what is new since `local`, deltas
 * against what we hold: a one-file commit at 10,000 tools is ~0.4 KB instead of ~240 KB, the whole new `tools/`
 * tree) indexed with Node's zlib and SHA-1 (isomorphic-git indexed in JavaScript: ~60 ms of a rescan's CPU), and
 * written into the clone as a pack of its own. `early` is the answer of a POST sent already for `remote` (a failed
 * one is asked again). A push between the head check and this request can make the server refuse a commit it no
 * longer advertises: then the refs are read again and the new head fetched, once. Returns the commit fetched.
 */
export async function fetchIntoClone({ store, http, address }: CloneRemote, advertisement: RefAdvertisement, { remote, local, branch }: CloneFetch, early?: Promise<Buffer>): Promise<string> {
  const shallows = await readShallow(store.gitdir);
  const fetchOne = async ({ capabilities: offered, url }: RefAdvertisement, want: string, sent?: Promise<Buffer>): Promise<string> => {
    const ask = () => fetchPack(http, url, address.requestHeaders(url), offered, { want, haves: [local], shallows });
    const received = sent ? await sent.catch(ask) : await ask();
    store.packs ??= new PackStore(store.gitdir);
    await store.packs.list();
    const objects = new ObjectReader(store.gitdir, store.packs);
    // a base the clone cannot give (missing, broken, or over what a read may hold: a push that changed a 100 MiB file
    // sends a delta on it) is refused as the fetch's own: every later fetch would ask for it again, a fresh clone does
    // not. A failure of this machine to read it (EMFILE, EIO: `MACHINE_ERRORS`) fails this fetch alone, to be asked
    // again at the next scan: it says nothing of the clone, and a fresh clone downloaded the whole repository for it
    // (~27 s of CPU at 100,000 tools) while the machine was short of what it needed (review I S2)
    const readOutside = async (oid: string): Promise<GitObject> =>
      store.listed?.get(oid) ??
      objects.read(oid).catch((error: unknown) => {
        if (isMachineError(error)) throw error;
        throw new ThinPackRefusal(`fetched pack: a delta on ${oid}, which the clone cannot give: ${(error as Error)?.message ?? String(error)}`);
      });
    const indexed = await indexPack(received, readOutside);
    // refs that name a commit we never received would fail every later scan (the next head check finds nothing new):
    // the commit must have come, or be one we hold already (a branch reset to a commit fetched before)
    if (indexOffset(indexed.index, Buffer.from(want, 'hex')) === undefined && !(await objects.read(want, 'commit').then(() => true, () => false))) {
      throw new Error(`the server's pack does not hold the commit it advertised for '${branch}' (${want})`);
    }
    if (indexed.objects > 0) await writeIndexedPack(store.gitdir, indexed);
    store.fetched = indexed.received;
    return want;
  };
  try {
    return await fetchOne(advertisement, remote, early);
  } catch (error) {
    const again = await discoverUploadPack(http, address.url, address.requestHeaders()).catch(() => undefined);
    const moved = again?.refs.get(`refs/heads/${branch}`);
    if (!again || !moved || moved === remote) throw error;
    return fetchOne(again, moved);
  }
}

/**
 * The system's errors that say this machine could not read at that moment, not what the clone holds: out of
 * descriptors or memory, busy, interrupted, a disk error. A file that is not there (ENOENT) is a clone that lacks it.
 */
const MACHINE_ERRORS = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN', 'EBUSY', 'EINTR', 'EIO']);

function isMachineError(error: unknown): boolean {
  return MACHINE_ERRORS.has(String((error as NodeJS.ErrnoException | undefined)?.code));
}
