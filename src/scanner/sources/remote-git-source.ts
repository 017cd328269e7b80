import fs from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { isLoopback } from '../../core/index.js';
import { ScanError } from '../scan-error.js';
import { loadGit, type Git } from './git-module.js';
import { objectFormat, readGitSnapshot, type ObjectStore } from './git-snapshot.js';
import type { RepositorySource, Snapshot } from './source.js';

/** Fetches kept as separate packs before the clone is started over. */
const MAX_PACKS = 64;

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
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly store: ObjectStore;
  private readonly dir: string;
  // loaded by the first snapshot, so that importing the scanner costs nothing for folder sources
  private git!: Git;
  private http!: HttpClient;

  constructor(private readonly options: RemoteOptions) {
    const parsed = new URL(options.url);
    const username = decodeURIComponent(parsed.username) || 'hldp';
    const token = options.token ?? (parsed.password ? decodeURIComponent(parsed.password) : undefined);
    parsed.username = '';
    parsed.password = '';
    // credentials travel in a header, never in the URL: it is stored in .git/config and shown to users
    this.url = parsed.toString();
    this.label = options.ref ? `${this.url}#${options.ref}` : this.url;
    this.cacheKey = `remote:${this.label}`;
    this.headers = token ? { Authorization: `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}` } : {};
    if (token && parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
      process.emitWarning(`the repository token is sent unencrypted to ${parsed.host} (an http:// URL); use https:// beyond this machine`, { code: 'HLDP_CLEARTEXT_TOKEN' });
    }
    this.dir = join(options.workDir, 'repo');
    this.store = { gitdir: join(this.dir, '.git'), cache: {} };
  }

  async snapshot(): Promise<Snapshot> {
    await mkdir(this.options.workDir, { recursive: true });
    this.git = await loadGit();
    this.http = (await import('isomorphic-git/http/node')).default;
    const { default: lockfile } = await import('proper-lockfile');
    // two processes updating one clone at once would corrupt it: hold a lock across fetch and read
    const release = await lockfile.lock(this.options.workDir, { retries: { retries: 600, minTimeout: 50, maxTimeout: 200 }, stale: 60_000 });
    try {
      const branch = await this.localBranch();
      if (!branch) return await this.cloneFresh();
      return await this.update(branch);
    } finally {
      await release();
    }
  }

  private async cloneFresh(): Promise<Snapshot> {
    const capabilities = await this.call('read', () => this.git.getRemoteInfo2({ http: this.http, url: this.url, headers: this.requestHeaders() }));
    const format = String((capabilities.capabilities as Record<string, unknown>)['object-format'] ?? 'sha1');
    if (format !== 'sha1') throw this.sha256Refusal(format);
    await this.call('clone', () =>
      this.git.clone({
        fs, http: this.http, dir: this.dir, gitdir: this.store.gitdir, url: this.url, headers: this.requestHeaders(), cache: this.store.cache,
        singleBranch: true, depth: 1, noCheckout: true, noTags: true,
        ...(this.options.ref ? { ref: this.options.ref } : {}),
      }),
    );
    const branch = await this.localBranch();
    const commit = await this.git.resolveRef({ fs, gitdir: this.store.gitdir, ref: `refs/remotes/origin/${branch}` });
    return readGitSnapshot(this.store, commit, this.options.maxBytes);
  }

  private async update(branch: string): Promise<Snapshot> {
    const local = await this.git.resolveRef({ fs, gitdir: this.store.gitdir, ref: `refs/remotes/origin/${branch}` });
    // the head check and the fetch after it both begin with GET info/refs: the fetch reuses the answer
    const http = reusingDiscovery(this.http);
    let remote: string | undefined;
    try {
      // protocol v1: the head check is one GET of info/refs (v2 needs a second round trip for ls-refs)
      const refs = await this.git.listServerRefs({ http, url: this.url, headers: this.requestHeaders(), prefix: `refs/heads/${branch}`, protocolVersion: 1 });
      remote = refs.find((ref) => ref.ref === `refs/heads/${branch}`)?.oid;
    } catch (error) {
      // unreachable: serve what was fetched last, and say so
      const snapshot = await readGitSnapshot(this.store, local, this.options.maxBytes);
      return { ...snapshot, stale: { reason: this.describe('reach', error).message, since: new Date().toISOString() } };
    }
    if (!remote) throw new ScanError('REF_NOT_FOUND', `branch '${branch}' no longer exists on ${this.url}`, { ref: branch });
    if (remote === local) return readGitSnapshot(this.store, local, this.options.maxBytes);
    // every fetch adds a pack and every object read scans all pack indexes: past a limit, start over from one pack
    if ((await this.packCount()) >= MAX_PACKS) {
      await rm(this.dir, { recursive: true, force: true });
      this.store.cache = {};
      return this.cloneFresh();
    }
    // no depth: `depth: 1` makes the server resend the whole tree (122 KB vs 24 KB, 480 ms vs 45 ms at 1,000 tools);
    // without it only the objects new since our commit come, and the shallow boundary stays where the clone put it
    const fetch = (client: HttpClient) =>
      this.git.fetch({
        fs, http: client, gitdir: this.store.gitdir, url: this.url, headers: this.requestHeaders(), cache: this.store.cache,
        ref: branch, remoteRef: branch, singleBranch: true, tags: false,
      });
    // a push between the two requests can make the reused answer name a commit the server no longer
    // offers: a fetch that failed on a reused answer is made again from a fresh one
    const result = await this.call('fetch', () => fetch(http).catch((error: unknown) => (http.replayed ? fetch(this.http) : Promise.reject(error))));
    const commit = result.fetchHead ?? remote;
    // fetch tells the server what we have from the local branch, which fetch itself does not move: move it,
    // or every later fetch would resend everything since the clone
    await this.git.writeRef({ fs, gitdir: this.store.gitdir, ref: `refs/heads/${branch}`, value: commit, force: true });
    return readGitSnapshot(this.store, commit, this.options.maxBytes);
  }

  // isomorphic-git writes into the headers it is given (Git-Protocol): a shared object would leak protocol v2 into a v1 fetch
  private requestHeaders(): Record<string, string> {
    return { ...this.headers };
  }

  private async packCount(): Promise<number> {
    const names = await readdir(join(this.store.gitdir, 'objects', 'pack')).catch(() => [] as string[]);
    return names.filter((name) => name.endsWith('.pack')).length;
  }

  private async localBranch(): Promise<string | undefined> {
    if (!fs.existsSync(join(this.store.gitdir, 'HEAD'))) return undefined;
    const format = await objectFormat(this.store.gitdir);
    if (format !== 'sha1') throw this.sha256Refusal(format);
    return (await this.git.currentBranch({ fs, gitdir: this.store.gitdir })) ?? undefined;
  }

  private async call<T>(action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.describe(action, error);
    }
  }

  private describe(action: string, error: unknown): ScanError {
    const cause = error as { code?: string; data?: { statusCode?: number }; message?: string };
    const status = cause.data?.statusCode;
    if (status === 401 || status === 403) {
      return new ScanError('AUTHENTICATION_FAILED', `cannot ${action} ${this.url}: HTTP ${status}; set a token with read access (--token, HLDP_REPO_TOKEN or repository.token in the config)`, { status });
    }
    if (cause.code === 'NotFoundError' && this.options.ref) {
      return new ScanError('REF_NOT_FOUND', `branch '${this.options.ref}' does not exist on ${this.url}`, { ref: this.options.ref });
    }
    const detail = status ? `HTTP ${status}` : (cause.message ?? String(error));
    return new ScanError('SOURCE_UNREACHABLE', `cannot ${action} ${this.url}: ${detail}`, { status });
  }

  private sha256Refusal(format: string): ScanError {
    return new ScanError('UNSUPPORTED_OBJECT_FORMAT', `repository ${this.url} uses ${format} object ids; brush-holder reads SHA-1 repositories only (isomorphic-git has no SHA-256 support)`, { format });
  }
}

/**
 * An HTTP client that answers a repeated GET of `info/refs` (same URL and protocol) once with the
 * answer of the first: a rescan's head check and its fetch would otherwise ask the server the same
 * question twice, one round trip apart.
 */
function reusingDiscovery(http: HttpClient): HttpClient & { replayed: boolean } {
  const answers = new Map<string, { response: GitHttpResponse; chunks: Uint8Array[] }>();
  const client = {
    /** whether an answer was given again */
    replayed: false,
    request: async (request: GitHttpRequest): Promise<GitHttpResponse> => {
      if ((request.method ?? 'GET') !== 'GET' || !/\/info\/refs(\?|$)/.test(request.url)) return http.request(request);
      const key = `${request.url} ${request.headers?.['Git-Protocol'] ?? request.headers?.['git-protocol'] ?? ''}`;
      const known = answers.get(key);
      if (known) {
        answers.delete(key);
        client.replayed = true;
        return { ...known.response, body: replay(known.chunks) };
      }
      const response = await http.request(request);
      if (response.statusCode !== 200) return response;
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.body ?? []) chunks.push(chunk);
      answers.set(key, { response, chunks });
      return { ...response, body: replay(chunks) };
    },
  };
  return client;
}

async function* replay(chunks: readonly Uint8Array[]): AsyncIterableIterator<Uint8Array> {
  yield* chunks;
}
