import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { commitFiles, git, initRepository } from './git.js';
import { startGitHttpServer, type GitHttpServer } from './git-http-server.js';

/** The repositories of a served one under a folder: the bare one a git server of `projectRoot` serves as `/tools.git`, and a working one. */
export interface RepositoryPair {
  /** the folder the server serves (`served/`) */
  projectRoot: string;
  /** the bare repository `served/tools.git` (a test may write into it: refs, objects made with git plumbing) */
  bare: string;
  /** the working repository `work`, on branch main */
  work: string;
}

/** Makes `served/tools.git` (bare, empty) and `work` under `root`; `makeWork` makes the working repository (default: an empty one). */
export async function repositoryPair(root: string, options: { objectFormat?: 'sha1' | 'sha256'; makeWork?: (path: string) => Promise<unknown> } = {}): Promise<RepositoryPair> {
  const format = options.objectFormat ? { objectFormat: options.objectFormat } : {};
  const projectRoot = join(root, 'served');
  const bare = await initRepository(join(projectRoot, 'tools.git'), { bare: true, ...format });
  const work = join(root, 'work');
  await (options.makeWork ? options.makeWork(work) : initRepository(work, format));
  return { projectRoot, bare, work };
}

/** A repository served over smart HTTP by `git http-backend` in this process, and a working repository whose `origin` it is. */
export interface ServedRepository extends RepositoryPair {
  /** the repository's URL, e.g. `http://127.0.0.1:41234/tools.git` */
  url: string;
  server: GitHttpServer;
  /** Commits `files` in `work` (null deletes one) and pushes main straight to `bare` (not through the server, whose requests a test may count or hold); returns the commit. */
  push(files: Record<string, string | Uint8Array | null>, message?: string): Promise<string>;
  /** Commits `files` in `work` and pushes main to `origin` through the server (`git push` over smart HTTP, with the token if any, as an author does); returns the commit. */
  pushOverHttp(files: Record<string, string | Uint8Array | null>, message?: string): Promise<string>;
}

/** What a served repository is asked for: its object format, a token the server requires (as Forgejo does), a hook before each request is served. */
export interface ServeOptions {
  objectFormat?: 'sha1' | 'sha256';
  token?: string;
  beforeServing?: (method: string, path: string, request: IncomingMessage) => Promise<void>;
}

/** Makes a repository pair under `root` and serves its bare repository (`server.close()` stops it); `work`'s `origin` is its URL. */
export async function servedRepository(root: string, options: ServeOptions = {}): Promise<ServedRepository> {
  const pair = await repositoryPair(root, options.objectFormat ? { objectFormat: options.objectFormat } : {});
  const server = await startGitHttpServer({ projectRoot: pair.projectRoot, ...(options.token ? { token: options.token } : {}), ...(options.beforeServing ? { beforeServing: options.beforeServing } : {}) });
  const url = `${server.url}/tools.git`;
  await git(pair.work, 'remote', 'add', 'origin', options.token ? url.replace('http://', `http://pusher:${options.token}@`) : url);
  const push = async (files: Record<string, string | Uint8Array | null>, message?: string): Promise<string> => {
    const commit = await commitFiles(pair.work, files, message);
    await git(pair.work, 'push', '-q', pair.bare, 'main');
    return commit;
  };
  const pushOverHttp = async (files: Record<string, string | Uint8Array | null>, message?: string): Promise<string> => {
    const commit = await commitFiles(pair.work, files, message);
    await git(pair.work, 'push', '-q', 'origin', 'main');
    return commit;
  };
  return { ...pair, url, server, push, pushOverHttp };
}
