import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner, type PushHint } from '../../src/scanner/index.js';
import { commitFiles, git, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// A rescan started by a signed push webhook knows the commit the branch should now name: it sends the fetch for it
// beside the head check instead of after it. The head check still decides: a push that names another commit than
// the branch's head (another branch's, an older one, a replayed delivery) never moves the scanner there.

const folder = testFolder('hldp-push-hint-');
let work: string;
let url: string;
/** the requests in the order they reached the server, and whether the POST came before the ref listing was answered */
let seen: string[];
let postBeforeListingAnswered: boolean;
let holding: boolean;
/** whether to hold the next POST until its client drops it, and whether it did */
let holdingEarly = false;
let earlyDropped: boolean | undefined;
/** how long every POST waits before it is answered */
let slowPostMs = 0;

beforeEach(async () => {
  seen = [];
  postBeforeListingAnswered = false;
  holding = false;
  let postSeen = false;
  let postArrived: (() => void) | undefined;
  ({ url, work } = await folder.serve({
    // once holding, a ref listing is answered only when a POST has arrived or a second has passed: a fetch sent
    // beside it arrives meanwhile, one sent after it never does
    beforeServing: async (method, path, request) => {
      if (slowPostMs > 0 && method === 'POST') await new Promise((resolve) => setTimeout(resolve, slowPostMs));
      if (holdingEarly && method === 'POST') {
        // the first POST (the early fetch) is held until its client drops it, or 20 s
        holdingEarly = false;
        earlyDropped = await new Promise<boolean>((resolve) => {
          request.socket.once('close', () => resolve(true));
          setTimeout(() => resolve(false), 20_000);
        });
        return;
      }
      if (!holding) return;
      seen.push(`${method} ${path.replace(/.*\//, '')}`);
      if (method === 'POST') {
        postSeen = true;
        postArrived?.();
        return;
      }
      postBeforeListingAnswered =
        postSeen ||
        (await new Promise<boolean>((resolve) => {
          postArrived = () => resolve(true);
          setTimeout(() => resolve(false), 1000);
        }));
      postArrived = undefined;
    },
  }));
});

async function push(files: Record<string, string | null>, branch = 'main'): Promise<string> {
  const commit = await commitFiles(work, files);
  await git(work, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  return commit;
}

/** A scanner that cloned the first commit. */
async function clonedScanner(): Promise<Scanner> {
  await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
  const scanner = new Scanner({ repo: url, cacheDir: join(folder.path, 'cache') });
  await scanner.scan();
  return scanner;
}

/** One rescan, its requests recorded and its ref listings held as `beforeServing` says. */
async function rescan(scanner: Scanner, pushed?: PushHint): Promise<ToolIndex> {
  seen = [];
  holding = true;
  try {
    return await scanner.scan(pushed);
  } finally {
    holding = false;
  }
}

describe('Scanner rescanning a remote for a signed push', () => {
  describe('when the push names the branch\'s new head', () => {
    it('sends the fetch beside the head check and reads that commit, in the same two requests', async () => {
      const scanner = await clonedScanner();
      const commit = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      const index = await rescan(scanner, { ref: 'refs/heads/main', after: commit });
      expect(index.commit).toBe(commit);
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
      expect(postBeforeListingAnswered).toBe(true);
      expect(seen.sort()).toEqual(['GET refs', 'POST git-upload-pack']);
      // the refs moved with the pack: the next rescan finds nothing new
      expect((await rescan(scanner)).commit).toBe(commit);
      await scanner.flush();
    });
  });

  describe('when the push names a commit the branch is not at', () => {
    it('keeps to the branch\'s head, for another branch\'s commit named as this branch\'s', async () => {
      const scanner = await clonedScanner();
      await git(work, 'checkout', '-q', '-b', 'other');
      const elsewhere = await push({ 'tools/intruder/TOOL.hdlp': makeToolYaml('intruder') }, 'other');
      await git(work, 'checkout', '-q', 'main');
      const head = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      const index = await rescan(scanner, { ref: 'refs/heads/main', after: elsewhere });
      expect(index.commit).toBe(head);
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
      expect((await rescan(scanner)).commit).toBe(head);
      await scanner.flush();
    });

    it('fetches the head when the pushed commit is older than it (a delivery replayed or late)', async () => {
      const scanner = await clonedScanner();
      const older = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      const head = await push({ 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') });
      const index = await rescan(scanner, { ref: 'refs/heads/main', after: older });
      expect(index.commit).toBe(head);
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta', 'gamma']);
      await scanner.flush();
    });
  });

  describe('when the push names an older commit and the server is slow to answer its fetch', () => {
    it('drops that fetch and its connection as soon as the head check disagrees, and fetches the head', async () => {
      // a replayed delivery's fetch ran to its end beside later rescans: up to a whole history downloaded and dropped
      const scanner = await clonedScanner();
      const older = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      const head = await push({ 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') });
      holdingEarly = true;
      earlyDropped = undefined;
      const index = await scanner.scan({ ref: 'refs/heads/main', after: older });
      expect(index.commit).toBe(head);
      await expect.poll(() => earlyDropped, { timeout: 25_000 }).toBe(true);
      await scanner.flush();
    }, 30_000);
  });

  describe('when the server takes longer than 5 s to start answering a fetch', () => {
    it('waits for it: Node\'s global agent ended such a request as timed out, failing the rescan', async () => {
      const scanner = await clonedScanner();
      const head = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      slowPostMs = 6_000;
      try {
        expect((await scanner.scan()).commit).toBe(head);
      } finally {
        slowPostMs = 0;
      }
      await scanner.flush();
    }, 30_000);
  });

  describe('when the push is to another branch', () => {
    it('checks the head first, as without a push', async () => {
      const scanner = await clonedScanner();
      await git(work, 'checkout', '-q', '-b', 'other');
      const elsewhere = await push({ 'tools/intruder/TOOL.hdlp': makeToolYaml('intruder') }, 'other');
      const index = await rescan(scanner, { ref: 'refs/heads/other', after: elsewhere });
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha']);
      expect(seen).toEqual(['GET refs']);
      await scanner.flush();
    });
  });
});
