import fs from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HttpClient } from 'isomorphic-git';
import { loadOnce } from '../../core/index.js';
import { collectGarbage } from '../full-collection.js';
import { ScanError } from '../scan-error.js';
import { defaultBranch, isBranchName } from './branch-name.js';
import { lockClone } from './clone-lock.js';
import { initClone, packCount, readShallow, shallowImplausible } from './clone-directory.js';
import { fetchIntoClone } from './clone-fetch.js';
import { deepenClone, fetchingHistory } from './history-fetch.js';
import { loadGit, type Git } from './git-module.js';
import { objectFormat, readGitSnapshot, type ObjectStore } from './git-snapshot.js';
import { indexPack } from './index-pack.js';
import { headBranch, readLooseRef, writeLooseRef } from './loose-refs.js';
import { HOLD_BYTES } from './pack-entries.js';
import { indexOffset, MAX_OBJECT_BYTES } from './pack-store.js';
import { RemoteAddress } from './remote-address.js';
import { ThinPackRefusal } from './thin-pack-refusal.js';
import { discoverUploadPack, fetchPack, type RefAdvertisement } from './upload-pack.js';
import { stoppedBy, type PushHint, type RepositorySource, type Snapshot } from './source.js';
import { writeIndexedPack } from './write-index.js';
import { PRIVATE_FOLDER_MODE } from '../private-cache.js';

// loaded once: a dynamic import() of a module already loaded still costs a trip through the loader (and its hooks) per call
const loadModules: () => Promise<{ git: Git; http: HttpClient; lockfile: typeof import('proper-lockfile') }> = loadOnce(() =>
  Promise.all([loadGit(), import('isomorphic-git/http/node'), import('proper-lockfile')]).then(([git, http, lockfile]) => ({ git, http: http.default, lockfile: lockfile.default })),
);

/** How a read of the clone says an object is not there: our object reader's words, and isomorphic-git's. */
const MISSING_OBJECT = /^Could not find [0-9a-f]{40}\b/;

/** How long a history fetch that failed is not asked again from the same shallow boundary. */
const HISTORY_RETRY_MS = 10 * 60_000;

/** Fetches kept as separate packs before the clone is started over. */
const MAX_PACKS = 64;

/** A clone of at least this many objects is followed by a full collection (`collectGarbage`): ~5,000 tools. */
const COLLECT_AFTER_OBJECTS = 10_000;

/** The fetch a signed push started beside the head check: the commit it asks for, its answer, and how to drop it. */
interface EarlyFetch {
  want: string;
  received: Promise<Buffer>;
  drop: AbortController;
}

/** How to reach a remote repository. */
export interface RemoteOptions {
  url: string;
  /** branch; default: the remote's HEAD */
  ref?: string;
  /** a Forgejo access token, sent as the password of HTTP Basic auth */
  token?: string;
  /** where the clone is kept between runs */
  workDir: string;
  /** the largest `TOOL.hdlp` read */
  maxBytes: number;
}

/** A remote over smart HTTP: a shallow, single-branch clone without checkout, kept in a cache and updated by fetch. */
export class RemoteGitSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly address: RemoteAddress;
  // where the last ref listing said the repository is (the address asked, or where its info/refs was redirected)
  private fetchUrl: string | undefined;
  private readonly store: ObjectStore;
  private readonly dir: string;
  private formatChecked = false;
  /** what the server offered at its last ref listing: a fetch sent beside the next head check asks by these */
  private offered: Set<string> | undefined;
  // loaded by the first snapshot, so that importing the scanner costs nothing for folder sources
  private git!: Git;
  private http!: HttpClient;
  /** the last history fetch that failed: from which boundary, to what depth, why, and until when it is not asked again */
  private historyFailed: { boundary: string; depth: number; reason: string; at: string; until: number } | undefined;

  constructor(private readonly options: RemoteOptions) {
    this.address = new RemoteAddress(options.url, options.token, options.ref);
    this.label = options.ref ? `${this.url}#${options.ref}` : this.url;
    this.cacheKey = `remote:${this.label}`;
    this.dir = join(options.workDir, 'repo');
    this.store = { gitdir: join(this.dir, '.git'), cache: {}, keepListed: true };
  }

  /** the repository's URL, credentials taken out */
  private get url(): string {
    return this.address.url;
  }

  async snapshot(pushed?: PushHint, signal?: AbortSignal): Promise<Snapshot> {
    await mkdir(this.options.workDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    const { git, http, lockfile } = await loadModules();
    this.git = git;
    this.http = signal ? droppedOn(http, signal) : http;
    // two processes updating one clone at once would corrupt it: hold a lock across fetch and read (its wait ends on `signal`)
    const release = await lockClone(lockfile, this.options.workDir, signal);
    try {
      const branch = await this.localBranch();
      // its reads, once fetched, stop between two files as a local repository's do
      return stoppedBy(this.withHistory(this.startedOverIfIncomplete(branch ? await this.update(branch, pushed) : await this.cloneFresh()), signal), signal);
    } finally {
      await release();
    }
  }

  /**
   * The snapshot, but a read that finds an object missing from the clone (after the repack retries) marks the clone
   * to be started over by the next scan. A clone or fetch checks only that the commit came: a server's answer that
   * held it without all it points at (a broken server, a proxy cut, a hostile one) would otherwise be believed whole
   * for good — the head check finds nothing new, and later fetches say `have` that commit, so what is missing never
   * comes (review G, F7). This scan still fails, or reports that file READ_FAILED; the next one clones afresh.
   */
  private startedOverIfIncomplete(snapshot: Snapshot): Snapshot {
    const guarded = async <T>(read: () => Promise<T>): Promise<T> => {
      try {
        return await read();
      } catch (error) {
        if (MISSING_OBJECT.test((error as Error)?.message ?? '')) await this.markIncomplete();
        throw error;
      }
    };
    return { ...snapshot, listEntries: () => guarded(() => snapshot.listEntries()), read: (entry) => guarded(() => snapshot.read(entry)) };
  }

  /**
   * The snapshot, its history asked of the remote where the clone's ends (a depth-1 clone has none): only at a clash
   * no previous index settles (`fetchingHistory`), under the clone's lock. A fetch that failed is not asked again for
   * `HISTORY_RETRY_MS` while the clone's boundary is the same, so that every rescan does not download it again: the
   * clash stays closed meanwhile.
   */
  private withHistory(snapshot: Snapshot, signal: AbortSignal | undefined): Snapshot {
    const history = snapshot.history;
    if (!history) return snapshot;
    return { ...snapshot, history: fetchingHistory(history, (depth) => this.deepen(snapshot.commit, depth, signal)) };
  }

  private async deepen(commit: string, depth: number, signal: AbortSignal | undefined): Promise<void> {
    const { lockfile } = await loadModules();
    const release = await lockClone(lockfile, this.options.workDir, signal);
    try {
      const boundary = (await readShallow(this.store.gitdir)).join(',');
      const failed = this.historyFailed;
      if (failed && failed.boundary === boundary && failed.depth <= depth && Date.now() < failed.until) throw new Error(`${failed.reason} (asked at ${failed.at}; not asked again before ${new Date(failed.until).toISOString()})`);
      let reason: string | undefined;
      try {
        await deepenClone({ store: this.store, http: this.http, address: this.address }, commit, depth);
        // a fetch that left the boundary where it was brought nothing older: not asked again either, since every scan
        // with this clash would fetch the whole depth again (a mirror that is shallow itself; review Z4, F6)
        if ((await readShallow(this.store.gitdir)).join(',') === boundary && boundary !== '') reason = `the server sent no history before commit ${boundary.split(',').map((oid) => oid.slice(0, 12)).join(', ')} (asked for ${depth} commits)`;
      } catch (error) {
        reason = this.address.describe('fetch history from', error).message;
      }
      if (reason !== undefined) {
        this.historyFailed = { boundary, depth, reason, at: new Date().toISOString(), until: Date.now() + HISTORY_RETRY_MS };
        throw new Error(reason);
      }
    } finally {
      await release();
    }
  }

  /** Takes HEAD out of the clone, under the lock: the next snapshot finds no branch and clones afresh (`cloneFresh`). */
  private async markIncomplete(): Promise<void> {
    const { lockfile } = await loadModules();
    const release = await lockClone(lockfile, this.options.workDir);
    try {
      await rm(join(this.store.gitdir, 'HEAD'), { force: true });
    } finally {
      await release();
    }
  }

  /**
   * A shallow clone of the one branch, made ourselves (isomorphic-git's clone indexed the pack in JavaScript and held
   * ~700 MB at 100,000 tools): the refs from one GET, then the commit's tree alone (`deepen 1`), indexed with Node's
   * zlib and SHA-1 as a fetch's pack is, and written as a git directory isomorphic-git and git both read.
   */
  private async cloneFresh(): Promise<Snapshot> {
    const advertisement = await this.call('read', () => discoverUploadPack(this.http, this.url, this.address.requestHeaders()));
    const format = [...advertisement.capabilities].find((capability) => capability.startsWith('object-format='))?.slice('object-format='.length) ?? 'sha1';
    if (format !== 'sha1') throw this.address.sha256Refusal(format);
    this.offered = advertisement.capabilities;
    const branch = this.options.ref ?? defaultBranch(advertisement);
    if (branch === undefined) throw new ScanError('REF_NOT_FOUND', `${this.url} has no branch to read (an empty repository?)`, {});
    // the name becomes a path in the clone and a line of its config: a server's `symref` is not trusted with either
    if (!isBranchName(branch)) throw new ScanError('REF_NOT_FOUND', `'${branch.slice(0, 200)}' is not a branch name git accepts (${this.url})`, { ref: branch.slice(0, 200) });
    const commit = advertisement.refs.get(`refs/heads/${branch}`);
    if (commit === undefined) throw new ScanError('REF_NOT_FOUND', `branch '${branch}' does not exist on ${this.url}`, { ref: branch });
    this.fetchUrl = advertisement.url;
    const received = await this.call('clone', () => fetchPack(this.http, advertisement.url, this.address.requestHeaders(advertisement.url), advertisement.capabilities, { want: commit, haves: [], shallows: [], depth: 1 }));
    // a clone's pack stands alone: a delta on anything outside it is a broken pack. Its objects are not kept to hand
    // on: the scan that follows reads the whole pack anyway, and keeping them held ~30 MB through it at 100,000 tools
    const outside = (oid: string) => Promise.reject(new Error(`corrupt pack: a delta on ${oid}, which is not in the pack`));
    const indexed = await this.call('clone', () => indexPack(received, outside, MAX_OBJECT_BYTES, HOLD_BYTES, 0));
    // what indexing made (an object, an id and a buffer per entry) lived until its end, so it sits in the old
    // generation: left there, it was collected only well into the reading, which peaked on top of it
    if (indexed.objects >= COLLECT_AFTER_OBJECTS) collectGarbage();
    if (indexOffset(indexed.index, Buffer.from(commit, 'hex')) === undefined) throw new ScanError('SOURCE_UNREACHABLE', `cannot clone ${this.url}: the server's pack does not hold the commit it advertised for '${branch}' (${commit})`, {});
    // HEAD last: a clone cut short (a full disk, a kill) has none, and the next scan starts it over from nothing
    await rm(this.dir, { recursive: true, force: true });
    this.store.cache = {};
    this.store.packs = undefined;
    this.store.listed = undefined;
    await initClone(this.store.gitdir, this.url, branch);
    await writeIndexedPack(this.store.gitdir, indexed);
    await writeFile(join(this.store.gitdir, 'shallow'), `${commit}\n`, 'latin1');
    for (const ref of [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`]) await writeLooseRef(this.store.gitdir, ref, commit);
    await writeFile(join(this.store.gitdir, 'HEAD'), `ref: refs/heads/${branch}\n`, 'utf8');
    this.store.fetched = indexed.received;
    return readGitSnapshot(this.store, commit, this.options.maxBytes);
  }

  private async update(branch: string, pushed: PushHint | undefined): Promise<Snapshot> {
    const local = await this.resolveRef(`refs/remotes/origin/${branch}`);
    // a signed push that names this branch's new head: its pack is asked for beside the head check (one round trip
    // instead of two), and kept only if the head check finds the branch there
    let early = this.fetchEarly(branch, local, pushed);
    let refusal: ThinPackRefusal;
    try {
      return await this.updateFrom(branch, local, early);
    } catch (error) {
      if (!(error instanceof ThinPackRefusal)) throw error;
      refusal = error;
    } finally {
      // an early fetch the head check did not want (another commit, a replayed delivery) is dropped with its download
      // at once, not left running beside later rescans: used, it has already finished
      early?.drop.abort();
    }
    // the refused pack (up to a pack's limit, 1 GiB) is let go before the fresh clone brings one as large: held
    // through it, a start-over after a signed push peaked at two packs (review I S1)
    early = undefined;
    return this.startOver(refusal);
  }

  private async updateFrom(branch: string, local: string, early: EarlyFetch | undefined): Promise<Snapshot> {
    let advertisement: RefAdvertisement;
    try {
      // protocol v0: the head check is one GET of info/refs, whose answer the fetch then uses (two requests in all)
      advertisement = await discoverUploadPack(this.http, this.url, this.address.requestHeaders());
    } catch (error) {
      // unreachable: serve what was fetched last, and say so
      const snapshot = await readGitSnapshot(this.store, local, this.options.maxBytes);
      return { ...snapshot, stale: { reason: this.address.describe('reach', error).message, since: new Date().toISOString() } };
    }
    this.offered = advertisement.capabilities;
    this.fetchUrl = advertisement.url;
    const remote = advertisement.refs.get(`refs/heads/${branch}`);
    if (!remote) throw new ScanError('REF_NOT_FOUND', `branch '${branch}' no longer exists on ${this.url}`, { ref: branch });
    if (remote === local) return readGitSnapshot(this.store, local, this.options.maxBytes);
    // every fetch adds a pack and every object read scans all pack indexes: past a limit, start over from one pack
    // (the old clone stays until the new one's pack has come: a failed clone leaves it to be read, and tried again next time)
    if ((await packCount(this.store.gitdir)) >= MAX_PACKS) return this.cloneFresh();
    let commit: string;
    try {
      commit = await fetchIntoClone({ store: this.store, http: this.http, address: this.address }, advertisement, { remote, local, branch }, early?.want === remote ? early.received : undefined);
    } catch (error) {
      // started over by `update`, once the early fetch's answer is let go
      if (error instanceof ThinPackRefusal) throw error;
      throw this.address.describe('fetch', error);
    }
    // the local branch names what we hold for the next fetch's `have`; both refs move only once the pack is written
    for (const ref of [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`]) await writeLooseRef(this.store.gitdir, ref, commit);
    return readGitSnapshot(this.store, commit, this.options.maxBytes);
  }

  /**
   * A clone started over in this scan, as after `MAX_PACKS` fetches, because a fetch's thin pack needed of the clone
   * what it may not have (`ThinPackRefusal`): the refusal would otherwise come back at every later fetch, which says
   * the same `have` — a push that changed three 48 MiB files was enough, for good (review of F4). Its pack brings whole objects and
   * is bounded as any clone's; when it fails too, the old clone stays to be read, and the error says both.
   */
  private async startOver(refusal: ThinPackRefusal): Promise<Snapshot> {
    try {
      return await this.cloneFresh();
    } catch (error) {
      const cause = error instanceof ScanError ? error : this.address.describe('clone', error);
      throw new ScanError(cause.code, `${cause.message} (a fresh clone, since the fetch was refused: ${refusal.message})`, cause.data);
    }
  }

  /**
   * The POST for the commit a signed push names, sent before the head check has answered, when the push is this
   * branch's, names a commit we lack, and a ref listing of this process told what to ask by. Its answer is used only
   * when the head check finds the branch at that commit; a failure is then met by asking again.
   */
  private fetchEarly(branch: string, local: string, pushed: PushHint | undefined): EarlyFetch | undefined {
    if (!pushed || !this.offered || pushed.ref !== `refs/heads/${branch}` || !/^[0-9a-f]{40}$/.test(pushed.after) || pushed.after === local) return undefined;
    const offered = this.offered;
    const drop = new AbortController();
    const url = this.fetchUrl ?? this.url;
    const received = readShallow(this.store.gitdir).then((shallows) => fetchPack(this.http, url, this.address.requestHeaders(url), offered, { want: pushed.after, haves: [local], shallows }, undefined, drop.signal));
    // awaited only if the head check agrees: never an unhandled rejection
    received.catch(() => undefined);
    return { want: pushed.after, received, drop };
  }

  private async localBranch(): Promise<string | undefined> {
    if (!fs.existsSync(join(this.store.gitdir, 'HEAD'))) return undefined;
    // a boundary no answer we accept leaves (written by a version that believed any): every fetch would send it, and fail
    if (await shallowImplausible(this.store.gitdir)) return undefined;
    // a property of the remote, checked before the clone: once per source, not per rescan
    if (!this.formatChecked) {
      const format = await objectFormat(this.store.gitdir);
      if (format !== 'sha1') throw this.address.sha256Refusal(format);
      this.formatChecked = true;
    }
    return (await headBranch(this.store.gitdir)) ?? (await this.git.currentBranch({ fs, gitdir: this.store.gitdir })) ?? undefined;
  }

  private async resolveRef(ref: string): Promise<string> {
    return (await readLooseRef(this.store.gitdir, ref)) ?? this.git.resolveRef({ fs, gitdir: this.store.gitdir, ref });
  }

  private async call<T>(action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.address.describe(action, error);
    }
  }
}

/**
 * `http`, each request of it dropped (its connection closed, its answer's reading failed) once `signal` aborts: a
 * server stopped while its first scan waited on a remote that drips its answer waited for the whole scan, up to the
 * fetch's 5-15 minute bounds (review Z17, Z17-6). The clone's lock is let go and nothing is written of a fetch dropped so.
 */
function droppedOn(http: HttpClient, signal: AbortSignal): HttpClient {
  return { request: (request) => http.request({ ...request, signal: request.signal ? AbortSignal.any([request.signal, signal]) : signal }) };
}
