// Review Z4, F2: a `deepen` answer's `shallow` lines were believed without bound or check: a hostile server's 4.5
// million ids were written to the clone's `.git/shallow` (184 MB) and sent back by every later fetch, which failed for
// good even once the server was honest. Now an answer naming more than 1,000 shallow commits, or one the pack did not
// bring, is refused (the history fetch fails, the clash fails closed, the clone stays as it was), and a clone whose
// `.git/shallow` holds more than any answer we accept leaves is started over. Real `git http-backend` behind a small
// hostile front, real scans with an empty cache.
import { randomBytes } from 'node:crypto';
import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/core/index.js';
import { Scanner } from '../../src/scanner/index.js';
import { makeToolYaml } from '../helpers/git.js';
import { startGitHttpFront } from '../helpers/git-http-front.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-shallow-flood-');

const tool = (name: string, said: string): string => makeToolYaml(name, { intent: `says ${said}` });
const duplicates = (index: { errors: Array<{ code: string; file: string; message: string }> }) => index.errors.filter((error) => error.code === 'DUPLICATE_NAME');

async function gitdirOf(cacheDir: string): Promise<string> {
  for (const entry of await readdir(cacheDir, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() && entry.name === '.git') return join(entry.parentPath, entry.name);
  }
  throw new Error(`no clone under ${cacheDir}`);
}

const shallowLines = (count: number): Buffer => Buffer.from(Array.from({ length: count }, () => `0035shallow ${randomBytes(20).toString('hex')}\n`).join(''), 'latin1');

describe('a remote scan whose history fetch is answered with shallow ids the pack did not bring', () => {
  it.each([
    ['3,000 of them (more than any deepen from one commit leaves)', 3000, /names more than 1000 shallow commits/],
    ['a few (ids of no commit the pack brought)', 5, /names [0-9a-f]{40} as the new shallow boundary, a commit its pack did not bring/],
  ])('%s: refuses the answer, serves neither twin, and leaves the clone as it was', async (_, count, why) => {
    const served = await folder.serve();
    await served.push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    await served.push({ 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    const head = await served.push({ 'README.md': 'later\n' }, 'later');
    let posts = 0;
    // the clone (the first POST, `deepen 1`) is answered as it is; the history fetch's answer (the second) starts with the flood
    const front = folder.closeAfter(
      await startGitHttpFront(served.url, {
        rewrite: (answer, request) => (request.method === 'POST' && ++posts === 2 ? { ...answer, body: Buffer.concat([shallowLines(count), answer.body]) } : answer),
      }),
    );
    const scanner = new Scanner({ repo: front.url, cacheDir: folder.cacheDir });
    const index = await scanner.scan();
    expect(posts).toBe(2);
    // on main: the answer was believed, `deploy` kept by history and `count` more ids written to .git/shallow
    expect(findTool(index, 'deploy')).toBeUndefined();
    expect(findTool(index, 'Deploy')).toBeUndefined();
    expect(duplicates(index)).toHaveLength(2);
    for (const { message } of duplicates(index)) {
      expect(message).toContain('a shallow clone, and more of it could not be fetched: cannot fetch history from');
      expect(message).toMatch(why);
    }
    const gitdir = await gitdirOf(folder.cacheDir);
    expect(await readFile(join(gitdir, 'shallow'), 'latin1')).toBe(`${head}\n`);
    // the clone still fetches a later push as before
    const later = await served.push({ 'tools/later/TOOL.hdlp': tool('later', 'later') }, 'later tool');
    expect((await scanner.scan()).commit).toBe(later);
    await scanner.flush();
  }, 120_000);

  it('starts over a clone whose .git/shallow holds more commits than any answer leaves, instead of sending them at every fetch', async () => {
    const served = await folder.serve();
    await served.push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    const first = new Scanner({ repo: served.url, cacheDir: folder.cacheDir });
    await first.scan();
    await first.flush();
    // as a version that believed any answer left it: 5,000 ids no fetch can use
    const gitdir = await gitdirOf(folder.cacheDir);
    await appendFile(join(gitdir, 'shallow'), Array.from({ length: 5000 }, () => `${randomBytes(20).toString('hex')}\n`).join(''), 'latin1');
    const later = await served.push({ 'tools/later/TOOL.hdlp': tool('later', 'later') }, 'later');
    const scanner = new Scanner({ repo: served.url, cacheDir: folder.cacheDir });
    const index = await scanner.scan();
    expect(index.commit).toBe(later);
    expect(findTool(index, 'later')).toBeDefined();
    // on main: the fetch sent the 5,000 ids and the file kept them for every later fetch
    expect(await readFile(join(await gitdirOf(folder.cacheDir), 'shallow'), 'latin1')).toBe(`${later}\n`);
    await scanner.flush();
  }, 120_000);
});
