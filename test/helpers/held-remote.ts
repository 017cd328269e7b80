import { join } from 'node:path';
import { startGitHttpServer } from './git-http-server.js';
import { commitFiles, git, initRepository, makeToolYaml } from './git.js';

/** A git remote over smart HTTP that holds a clone's fetch until the test lets it go. */
export interface HeldRemote {
  /** the repository's URL (one tool, `echo`) */
  url: string;
  /** resolves once a clone asks for the fetch (its `git-upload-pack` POST), which then waits */
  fetched: Promise<void>;
  /** answers the fetch */
  answer(): void;
  /** answers the fetch if it still waits, and stops the server */
  close(): Promise<void>;
}

/**
 * A remote in `root` holding one tool, whose clone's fetch is answered only once `answer` is called: a service's start
 * (its scan of a remote) held there, for a signal sent during it.
 */
export async function heldRemote(root: string): Promise<HeldRemote> {
  const served = join(root, 'served');
  await initRepository(join(served, 'tools.git'), { bare: true });
  let fetching!: () => void;
  const fetched = new Promise<void>((resolve) => (fetching = resolve));
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const server = await startGitHttpServer({
    projectRoot: served,
    beforeServing: async (method, path) => {
      if (method === 'POST' && path.endsWith('/git-upload-pack')) {
        fetching();
        await answered;
      }
    },
  });
  const work = await initRepository(join(root, 'work'));
  await commitFiles(work, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
  await git(work, 'push', '-q', `${server.url}/tools.git`, 'main');
  return {
    url: `${server.url}/tools.git`,
    fetched,
    answer,
    close: async () => {
      answer();
      await server.close();
    },
  };
}
