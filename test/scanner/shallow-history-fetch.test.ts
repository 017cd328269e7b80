// A remote is cloned at depth 1 (one commit, no parents), so at a start with an empty cache git history had nothing to
// say of a case-twin clash: the walk stopped at once and path order handed `deploy` to a newcomer `tools/Deploy/`
// (it sorts first). Now, at such a clash only, the scanner fetches more history for it (`deepen`, bounded) and decides
// by it; where history still cannot say (the server holds none older), neither twin is served. Real repositories
// served by `git http-backend`, real scans with an empty cache.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { git, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-shallow-history-');

const tool = (name: string, said: string): string => makeToolYaml(name, { intent: `says ${said}` });
const duplicates = (index: { errors: Array<{ code: string; file: string; message: string }> }) => index.errors.filter((error) => error.code === 'DUPLICATE_NAME');

async function gitdirOf(cacheDir: string): Promise<string> {
  for (const entry of await readdir(cacheDir, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() && entry.name === '.git') return join(entry.parentPath, entry.name);
  }
  throw new Error(`no clone under ${cacheDir}`);
}

describe('a remote scan with an empty cache', () => {
  it('fetches no history when no names clash: the clone is the branch commit alone, in two requests', async () => {
    const { url, push, server } = await folder.serve();
    await push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') });
    await push({ 'tools/build/TOOL.hdlp': tool('build', 'build') }, 'two');
    const index = await scanOnce(url, { cacheDir: folder.cacheDir });
    expect(index.tools.map((one) => one.name)).toEqual(['build', 'deploy']);
    // the ref listing and the depth-1 fetch: nothing else
    expect(server.requests()).toBe(2);
    expect((await readFile(join(await gitdirOf(folder.cacheDir), 'shallow'), 'latin1')).trim()).toBe(index.commit);
  }, 60_000);

  it('at a case-twin clash, fetches the history it needs and keeps the name with the claim that was there first', async () => {
    const { url, push, work } = await folder.serve();
    await push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    const added = await push({ 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    // more commits after it than the first fetch brings (16): the scanner asks again, further back
    for (let round = 1; round <= 18; round++) await git(work, 'commit', '-q', '--allow-empty', '-m', `work ${round}`);
    for (let round = 1; round <= 2; round++) await push({ 'README.md': `work ${round}\n` }, `readme ${round}`);
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    const index = await scanner.scan();
    // on main: tools/Deploy/ kept (path order), the walk having stopped at the depth-1 clone's edge
    expect(findTool(index, 'deploy')?.intent).toBe('says old deploy');
    expect(findTool(index, 'Deploy')).toBeUndefined();
    expect(duplicates(index)).toEqual([
      expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`already taken by tools/deploy/TOOL.hdlp, kept because it held that name first in git history (tools/Deploy/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) }),
    ]);
    // git reads the clone whole, with its new shallow boundary, and a later push is fetched onto it
    const gitdir = await gitdirOf(folder.cacheDir);
    await git(gitdir, '--git-dir', gitdir, 'fsck', '--no-dangling');
    expect(Number(await git(gitdir, '--git-dir', gitdir, 'rev-list', '--count', 'HEAD'))).toBeGreaterThan(21);
    const later = await push({ 'tools/later/TOOL.hdlp': tool('later', 'later') }, 'later');
    const rescanned = await scanner.scan();
    expect(rescanned.commit).toBe(later);
    expect(findTool(rescanned, 'deploy')?.intent).toBe('says old deploy');
    expect(findTool(rescanned, 'later')).toBeDefined();
    await git(gitdir, '--git-dir', gitdir, 'fsck', '--no-dangling');
    await scanner.flush();
  }, 120_000);

  it('serves neither twin when the server holds no older history (a shallow mirror), and says why', async () => {
    const { url, push, bare, work } = await folder.serve();
    await push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    const head = await push({ 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    // the served repository is itself a depth-1 clone: history cannot date the claims
    await rm(bare, { recursive: true, force: true });
    await git(folder.path, 'clone', '-q', '--bare', '--depth', '1', `file://${work}`, bare);
    const index = await scanOnce(url, { cacheDir: folder.cacheDir });
    // on main: the scan failed, the shallow repository's ref listing refused as malformed (its `shallow` line)
    expect(findTool(index, 'deploy')).toBeUndefined();
    expect(findTool(index, 'Deploy')).toBeUndefined();
    const why = `and neither is served: git history does not tell which is older: it ends at commit ${head.slice(0, 12)} (a shallow clone, and more of it could not be fetched: the server sent no history before commit ${head.slice(0, 12)}`;
    expect(duplicates(index)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'tools/deploy/TOOL.hdlp', message: expect.stringContaining(why) }),
        expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(why) }),
      ]),
    );
    expect(duplicates(index)).toHaveLength(2);
    for (const { message } of duplicates(index)) expect(message).toMatch(/so no claim keeps the name: rename or remove one of them$/);
    // the name is contested: a policy naming it covers the twins as it restricts, neither as it allows
    expect(index.contested).toEqual([{ name: 'deploy', refused: [], twins: expect.arrayContaining(['deploy', 'Deploy']) }]);
  }, 60_000);

  it('does not fetch the history again at the next rescan when a fetch brought nothing older (review Z4, F6)', async () => {
    let posts = 0;
    const { url, push, bare, work } = await folder.serve({
      beforeServing: async (method) => {
        if (method === 'POST') posts++;
      },
    });
    await push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    const head = await push({ 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    // the served repository is itself a depth-1 clone: a deepen answers, and brings nothing older
    await rm(bare, { recursive: true, force: true });
    await git(folder.path, 'clone', '-q', '--bare', '--depth', '1', `file://${work}`, bare);
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    const index = await scanner.scan();
    expect(duplicates(index)).toHaveLength(2);
    expect(duplicates(index)[0]!.message).toContain(`the server sent no history before commit ${head.slice(0, 12)} (asked for 16 commits)`);
    // the clone and one history fetch
    expect(posts).toBe(2);
    // a push adding a tool: the rescan fetches it (one POST) and does not ask the mirror for the same history again
    // (on main it did, at every scan with this clash, the whole depth each time)
    const later = await push({ 'tools/later/TOOL.hdlp': tool('later', 'later') }, 'later');
    const rescanned = await scanner.scan();
    expect(rescanned.commit).toBe(later);
    expect(duplicates(rescanned)).toHaveLength(2);
    expect(duplicates(rescanned)[0]!.message).toMatch(/the server sent no history before commit [0-9a-f]{12} \(asked for 16 commits\) \(asked at [^;]+; not asked again before [^)]+\)\) with both present/);
    expect(posts).toBe(3);
    await scanner.flush();
  }, 90_000);

  it('serves neither twin when the history fetch fails, names the failure, and does not ask again at the next rescan', async () => {
    let posts = 0;
    // the clone (the first POST) is answered; the history fetch (the second) fails; later ones are answered
    const { url, push } = await folder.serve({
      beforeServing: async (method) => {
        if (method === 'POST' && ++posts === 2) throw new Error('history refused');
      },
    });
    await push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    await push({ 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    const index = await scanner.scan();
    expect(findTool(index, 'deploy')).toBeUndefined();
    expect(duplicates(index)).toHaveLength(2);
    expect(duplicates(index)[0]!.message).toMatch(/\(a shallow clone, and more of it could not be fetched: cannot fetch history from http:\/\/127\.0\.0\.1:\d+\/tools\.git: HTTP 500\) with both present, so no claim keeps the name/);
    expect(posts).toBe(2);
    // a push adding a tool (the index is assembled again): the rescan fetches it (one POST) and does not download the
    // history again from the same boundary
    const later = await push({ 'tools/later/TOOL.hdlp': tool('later', 'later') }, 'later');
    const rescanned = await scanner.scan();
    expect(rescanned.commit).toBe(later);
    expect(findTool(rescanned, 'deploy')).toBeUndefined();
    expect(duplicates(rescanned)[0]!.message).toMatch(/HTTP 500 \(asked at [^;]+; not asked again before [^)]+\)\) with both present/);
    expect(posts).toBe(3);
    await scanner.flush();
  }, 60_000);
});
