import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { MAX_DEFINITION_BYTES } from './yaml-mapping.js';
import { trustedCacheDir } from './private-cache.js';
import { ScanError } from './scan-error.js';
import { FolderSource } from './sources/folder-source.js';
import { gitDirectoryOf, LocalGitSource } from './sources/local-git-source.js';
import { RemoteGitSource } from './sources/remote-git-source.js';
import type { RepositorySource } from './sources/source.js';
import type { ToolIndex } from '../core/index.js';

/** Where a repository is and how to read it. */
export interface RepositoryOptions {
  /** a folder holding `tools/`, a local git repository, or an `http(s)://` git URL */
  repo: string;
  /** branch or ref (git sources only) */
  ref?: string;
  /** access token for a remote */
  token?: string;
  /** cache directory; default `$HLDP_CACHE_DIR`, else `$XDG_CACHE_HOME/brush-holder`, else `~/.cache/brush-holder` */
  cacheDir?: string;
  /** the largest `TOOL.hdlp` read, in bytes; a larger one is refused by its size, unread (default 1 MiB) */
  maxDefinitionBytes?: number;
  /**
   * What a reading of the index finds that the scan does not (the policies read against the tools' params: policy's
   * `withPolicyProblems`), given every index the scanner serves, again at each scan: it returns the index with those
   * among its errors and warnings in place of any it had, or the index itself
   */
  judge?: (index: ToolIndex) => ToolIndex;
}

/** The default cache directory. */
export function defaultCacheDir(): string {
  if (process.env.HLDP_CACHE_DIR) return resolve(process.env.HLDP_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'brush-holder');
}

/** This source's own folder inside the cache. */
export function sourceCacheDir(cacheDir: string, cacheKey: string): string {
  return join(cacheDir, 'sources', createHash('sha256').update(cacheKey).digest('hex').slice(0, 20));
}

/** Picks the source for a repository argument: URL → remote, git repository → its object store, else a folder. */
export function openSource(options: RepositoryOptions): { source: RepositorySource; workDir: string } {
  // a cache folder another user may write is not used (review Z10-2)
  const cacheDir = trustedCacheDir(options.cacheDir ?? defaultCacheDir());
  const maxBytes = options.maxDefinitionBytes ?? MAX_DEFINITION_BYTES;
  if (/^https?:\/\//i.test(options.repo)) {
    const key = new URL(options.repo);
    key.username = '';
    key.password = '';
    const workDir = sourceCacheDir(cacheDir, `remote:${key.toString()}#${options.ref ?? ''}`);
    const source = new RemoteGitSource({ url: options.repo, workDir, maxBytes, ...pick(options, 'ref', 'token') });
    return { source, workDir };
  }
  const path = resolve(options.repo);
  if (!existsSync(path)) {
    throw new ScanError('SOURCE_NOT_FOUND', `repository '${options.repo}' does not exist; pass a folder holding tools/, a git repository, or an http(s) URL`);
  }
  if (gitDirectoryOf(path)) {
    const source = new LocalGitSource(path, options.ref ?? 'HEAD', maxBytes);
    return { source, workDir: sourceCacheDir(cacheDir, source.cacheKey) };
  }
  if (options.ref) {
    throw new ScanError('REF_NOT_FOUND', `'${options.repo}' is a plain folder, not a git repository, so it has no ref '${options.ref}'`);
  }
  const workDir = sourceCacheDir(cacheDir, FolderSource.cacheKeyOf(path));
  // what its last snapshot saw is kept beside its scans: a restart reads only the files whose stat changed since
  return { source: new FolderSource(path, maxBytes, join(workDir, 'folder-record')), workDir };
}

function pick<T extends object, K extends keyof T>(object: T, ...keys: K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (object[key] !== undefined) picked[key] = object[key];
  return picked;
}
