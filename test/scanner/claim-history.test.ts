// Review Z, Z3: at a clash no previous index settles, the scanner asks git history which claim is older. These
// scan real repositories with an empty cache: several clashes settled in one walk, a toolset twin, and where history
// cannot say (a plain folder), the rule before it, with the reason in the message; where history stops short of the
// claims' start (a shallow clone's edge), neither is served.
import { execFileSync } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTool } from '../../src/core/index.js';
import { scanOnce } from '../../src/scanner/index.js';
import { HISTORY_BYTES, walkClaims } from '../../src/scanner/sources/claim-history.js';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-claim-history-');
});
afterEach(() => temp.cleanup());

const tool = (name: string, said: string): string => makeToolYaml(name, { intent: `says ${said}` });
const toolset = (name: string, member: string): string => `name: ${name}\ndescription: operations\ntools: [${member}]\nauthor: TEST-001\nwhy: tests\n`;
const duplicates = (index: { errors: Array<{ code: string; file: string; message: string }> }) => index.errors.filter((error) => error.code === 'DUPLICATE_NAME');

describe('a scan with an empty cache, at a clash', () => {
  it('settles several names in one walk, each by the claim present first, tools and toolsets alike', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'one');
    await commitFiles(repo, { 'tools/build/TOOL.hdlp': tool('build', 'old build'), 'toolsets/ops/TOOLSET.hdlp': toolset('ops', 'deploy') }, 'two');
    // each newcomer sorts first (code point order): path order alone gave it the name
    const three = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy'), 'toolsets/Ops/TOOLSET.hdlp': toolset('Ops', 'build') }, 'three');
    await commitFiles(repo, { 'README.md': 'between\n' }, 'unrelated');
    const five = await commitFiles(repo, { 'tools/Build/TOOL.hdlp': tool('Build', 'new Build') }, 'five');
    const index = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    expect(findTool(index, 'deploy')?.intent).toBe('says old deploy');
    expect(findTool(index, 'build')?.intent).toBe('says old build');
    expect(index.toolsets.map((set) => [set.name, set.tools])).toEqual([['ops', ['deploy']]]);
    const short = three.slice(0, 12);
    expect(duplicates(index)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`kept because it held that name first in git history (tools/Deploy/TOOL.hdlp appeared in commit ${short}`) }),
        expect.objectContaining({ file: 'tools/Build/TOOL.hdlp', message: expect.stringContaining(`already taken by tools/build/TOOL.hdlp, kept because it held that name first in git history (tools/Build/TOOL.hdlp appeared in commit ${five.slice(0, 12)}`) }),
        expect.objectContaining({ file: 'toolsets/Ops/TOOLSET.hdlp', message: expect.stringContaining(`kept because it held that name first in git history (toolsets/Ops/TOOLSET.hdlp appeared in commit ${short}`) }),
      ]),
    );
    expect(duplicates(index)).toHaveLength(3);
  }, 60_000);

  it('serves neither twin at a shallow clone\'s edge with both present, and says so', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') });
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'two');
    const shallow = join(temp.path, 'shallow');
    await git(temp.path, 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    const index = await scanOnce(shallow, { cacheDir: join(temp.path, 'cache') });
    // the history that would say which is older is not in the clone: path order handed the name to the newcomer
    // (`tools/Deploy/` sorts first); no claim keeps it now (a local clone is not fetched into)
    expect(findTool(index, 'Deploy')).toBeUndefined();
    expect(findTool(index, 'deploy')).toBeUndefined();
    expect(duplicates(index)).toHaveLength(2);
    for (const { message } of duplicates(index)) {
      expect(message).toMatch(/neither is served: git history does not tell which is older: it ends at commit [0-9a-f]{12} \(a shallow clone\) with both present, so no claim keeps the name: rename or remove one of them$/);
    }
  }, 60_000);

  it('keeps the rule before it for a plain folder, which has no history', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') });
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'two');
    const folder = join(temp.path, 'folder');
    await cp(join(repo, 'tools'), join(folder, 'tools'), { recursive: true });
    const index = await scanOnce(folder, { cacheDir: join(temp.path, 'cache') });
    expect(findTool(index, 'Deploy')?.intent).toBe('says new Deploy');
    expect(duplicates(index)).toEqual([expect.objectContaining({ file: 'tools/deploy/TOOL.hdlp', message: expect.stringMatching(/kept because it is the first by path order: rename this one$/) })]);
  }, 60_000);

  // review Z2, Z2-2: a claim that came in through a merge has no age a first-parent walk can tell
  it('serves neither twin when one came in through a merge commit (a branch merged with --no-ff), and says so', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'one');
    await git(repo, 'checkout', '-q', '-b', 'feature');
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    await git(repo, 'checkout', '-q', 'main');
    await commitFiles(repo, { 'README.md': 'meanwhile\n' }, 'meanwhile');
    await git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'feature');
    const merge = await git(repo, 'rev-parse', 'HEAD');
    const index = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    // the walk cannot see that `deploy` was on the feature branch before `Deploy`: the newcomer's line is not followed
    expect(findTool(index, 'deploy')).toBeUndefined();
    expect(findTool(index, 'Deploy')).toBeUndefined();
    const why = `and neither is served: git history cannot tell which claim is older: tools/Deploy/TOOL.hdlp came in through the merge commit ${merge.slice(0, 12)}`;
    expect(duplicates(index)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'tools/deploy/TOOL.hdlp', message: expect.stringContaining(why) }),
        expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(why) }),
      ]),
    );
    expect(duplicates(index)).toHaveLength(2);
    // review userZ2, U11: the reviewed tool was told "rename this one"; each twin names the newcomer and the reviewed one
    for (const { message } of duplicates(index)) {
      expect(message).toMatch(/rename or remove one of them \(tools\/Deploy\/TOOL\.hdlp came in through the merge; tools\/deploy\/TOOL\.hdlp was there before it\)$/);
      expect(message).not.toContain('rename this one');
    }
  }, 60_000);

  it('serves neither twin when the merge dropped the reviewed one (`-s ours`) and a later commit added it again', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'README.md': 'start\n' }, 'root');
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    await git(repo, 'checkout', '-q', '-b', 'evil', 'HEAD~1');
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'newcomer');
    // main merged into the branch keeping the branch's tree, then the reviewed tool added back as a plain commit
    await git(repo, 'merge', '-q', '-s', 'ours', '--no-edit', 'main');
    const merge = await git(repo, 'rev-parse', 'HEAD');
    await git(repo, 'checkout', '-q', 'main', '--', 'tools/deploy');
    await git(repo, 'commit', '-q', '-m', 'add deploy back');
    await git(repo, 'checkout', '-q', 'main');
    await git(repo, 'merge', '-q', '--ff-only', 'evil');
    const index = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    expect(findTool(index, 'deploy')).toBeUndefined();
    expect(duplicates(index)).toEqual(
      expect.arrayContaining([expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`neither is served: git history cannot tell which claim is older: tools/deploy/TOOL.hdlp came in through the merge commit ${merge.slice(0, 12)}`) })]),
    );
    expect(duplicates(index)).toHaveLength(2);
  }, 60_000);

  it('dates each alias of one file by its own declaration, not by another alias the same old file declared', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    const aliased = (aliases: string): string => makeToolYaml('x', { intent: 'says x', aliases });
    await commitFiles(repo, { 'tools/x/TOOL.hdlp': aliased('[p]') }, 'x aliases p');
    await commitFiles(repo, { 'tools/q/TOOL.hdlp': tool('q', 'reviewed q') }, 'q');
    const added = await commitFiles(repo, { 'tools/x/TOOL.hdlp': aliased('[p, q]'), 'tools/p/TOOL.hdlp': tool('p', 'new p') }, 'x aliases q too; p added');
    const index = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    // on main the old file's verdict for one alias was kept by its blob id and given to the other: x "declared" q before
    // tools/q/ was there, and the reviewed q lost its name (or x lost p), by which alias was asked first
    expect(findTool(index, 'q')?.intent).toBe('says reviewed q');
    expect(duplicates(index)).toEqual([expect.objectContaining({ file: 'tools/p/TOOL.hdlp', message: expect.stringContaining(`declared first in git history (tools/p/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) })]);
  }, 60_000);

  it('still decides for a reviewed tool that itself came in through a merge commit, when the twin was added after it', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'README.md': 'start\n' }, 'root');
    await git(repo, 'checkout', '-q', '-b', 'review');
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'reviewed');
    await git(repo, 'checkout', '-q', 'main');
    await git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'review');
    const added = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    const index = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    expect(findTool(index, 'deploy')?.intent).toBe('says old deploy');
    expect(duplicates(index)).toEqual([expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`kept because it held that name first in git history (tools/Deploy/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) })]);
  }, 60_000);

  it('still decides across a merge that brought in other work, where the newcomer was added on the first-parent line', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'one');
    await git(repo, 'checkout', '-q', '-b', 'docs');
    await commitFiles(repo, { 'README.md': 'docs\n', 'tools/build/TOOL.hdlp': tool('build', 'build') }, 'docs');
    await git(repo, 'checkout', '-q', 'main');
    await commitFiles(repo, { 'NOTES.md': 'meanwhile\n' }, 'meanwhile');
    await git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'docs');
    const added = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'add Deploy');
    const index = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    expect(findTool(index, 'deploy')?.intent).toBe('says old deploy');
    expect(duplicates(index)).toEqual([expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`kept because it held that name first in git history (tools/Deploy/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) })]);
  }, 60_000);
});

// review Z2, Z2-4: the walk is bounded by the bytes of trees it reads besides its 300 commits, and says where it stopped
describe('walkClaims over a real repository', () => {
  it('stops at the byte bound with both claims present, and dates them without it', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'old deploy') }, 'one');
    const added = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'new Deploy') }, 'two');
    for (const round of [1, 2, 3]) await commitFiles(repo, { [`tools/t${round}/TOOL.hdlp`]: tool(`t${round}`, 'other'), 'README.md': `${round}\n` }, `round ${round}`);
    const head = await git(repo, 'rev-parse', 'HEAD');
    const gitdir = join(repo, '.git');
    const objects = new ObjectReader(gitdir, new PackStore(gitdir));
    const claims = [{ path: ['tools', 'deploy'] }, { path: ['tools', 'Deploy'] }];
    const bounded = await walkClaims(objects, gitdir, head, claims, 300, 1);
    expect(bounded).toEqual({ appeared: [undefined, undefined], end: { reason: 'bytes', commit: expect.any(String), bytes: 1 } });
    const whole = await walkClaims(objects, gitdir, head, claims);
    expect(whole.appeared).toEqual([undefined, { commit: added, depth: 3 }]);
  }, 60_000);
});

// review Z4, F5: a walk's work was claims × tree entries at each commit (a linear search of the `tools/` tree per claim),
// in microtasks: 2,000 twin pairs over 40 commits held a running gateway's event loop ~70 s. Now each tree is indexed
// once a commit, the event loop turns during the walk, and the look-ups are bounded (past it, both claims undecided)
describe('a walk over thousands of twin pairs', () => {
  // `pairs` tool folders tI beside TI in the first commit, then `commits` commits each changing tools/base/
  function twinsRepository(path: string, pairs: number, commits: number): string {
    execFileSync('git', ['init', '-q', '-b', 'main', path]);
    const lines: string[] = ['commit refs/heads/main', 'committer a <a@b> 1700000000 +0000', 'data 4', 'base'];
    const blob = (file: string, text: string): void => void lines.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(text)}`, text);
    blob('tools/base/TOOL.hdlp', tool('base', 'base'));
    for (let at = 0; at < pairs; at++) {
      blob(`tools/t${at}/TOOL.hdlp`, tool(`t${at}`, 'older'));
      blob(`tools/T${at}/TOOL.hdlp`, tool(`T${at}`, 'newer'));
    }
    for (let at = 1; at <= commits; at++) {
      lines.push('commit refs/heads/main', `committer a <a@b> ${1700000000 + at} +0000`, 'data 4', 'work');
      blob('tools/base/TOOL.hdlp', `${tool('base', 'base')}# ${at}\n`);
    }
    lines.push('done', '');
    execFileSync('git', ['-C', path, 'fast-import', '--quiet', '--done'], { input: lines.join('\n') });
    return execFileSync('git', ['-C', path, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  }

  it('indexes each tree once a commit and lets the event loop turn while it walks', async () => {
    const repo = join(temp.path, 'twins');
    const head = twinsRepository(repo, 2000, 40);
    const gitdir = join(repo, '.git');
    // the real reader, counting its reads: a turn of the event loop asked for early in the walk runs when it lets go
    let reads = 0;
    let turnedAt: number | undefined;
    class CountingReader extends ObjectReader {
      override read(...args: Parameters<ObjectReader['read']>): ReturnType<ObjectReader['read']> {
        if (++reads === 12) setImmediate(() => (turnedAt = reads));
        return super.read(...args);
      }
    }
    const packs = new PackStore(gitdir);
    await packs.list();
    const objects = new CountingReader(gitdir, packs);
    const claims = Array.from({ length: 2000 }, (_, at) => [{ path: ['tools', `t${at}`], group: at }, { path: ['tools', `T${at}`], group: at }]).flat();
    // on main: ~31 s of CPU at load 10 in one hold of the event loop, the turn asked for running after the walk
    const answer = await walkClaims(objects, gitdir, head, claims);
    // both of every pair there since the first commit: history does not tell them apart
    expect(answer.end).toEqual({ reason: 'root', commit: expect.any(String) });
    expect(answer.appeared.every((one) => one === undefined)).toBe(true);
    // the turn ran while the walk had most of its 40 commits still to read
    expect(turnedAt).toBeDefined();
    expect(turnedAt!).toBeLessThan(reads / 2);
  }, 60_000);

  it('stops at the bound of claim look-ups with the claims undated, so the clash fails closed', async () => {
    const repo = join(temp.path, 'twins');
    const head = twinsRepository(repo, 20, 10);
    const gitdir = join(repo, '.git');
    const packs = new PackStore(gitdir);
    await packs.list();
    const objects = new ObjectReader(gitdir, packs);
    const claims = Array.from({ length: 20 }, (_, at) => [{ path: ['tools', `t${at}`], group: at }, { path: ['tools', `T${at}`], group: at }]).flat();
    const bounded = await walkClaims(objects, gitdir, head, claims, 300, HISTORY_BYTES, { looks: 100 });
    expect(bounded).toEqual({ appeared: claims.map(() => undefined), end: { reason: 'work', commit: expect.any(String), looks: 100 } });
    const whole = await walkClaims(objects, gitdir, head, claims);
    expect(whole.end).toEqual({ reason: 'root', commit: expect.any(String) });
  }, 60_000);
});
