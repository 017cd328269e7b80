import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { git, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// A definition's size is asked before it is read (a huge blob is refused unread). For a delta, `size` now inflates a
// small delta whole and keeps it for the read that follows, instead of inflating its head once and the whole again
// (issue #18: one zlib engine per object less in a cold scan). A cold scan of a deeply deltified repository served
// over smart HTTP must read every definition exactly as committed, and still refuse one over the bound by its size.

const execFileAsync = promisify(execFile);
const folder = testFolder('hldp-delta-sizes-');

/** The blobs that the packs under `folder` (searched down) hold as deltas (`git verify-pack -v`: an entry with a base). */
async function deltaBlobs(folder: string): Promise<Set<string>> {
  const indexes = (await readdir(folder, { recursive: true })).filter((name) => /objects\/pack\/pack-[0-9a-f]+\.idx$/.test(name));
  expect(indexes.length).toBeGreaterThan(0);
  const deltas = new Set<string>();
  for (const index of indexes) {
    const { stdout } = await execFileAsync('git', ['verify-pack', '-v', join(folder, index)], { maxBuffer: 1 << 26 });
    for (const match of stdout.matchAll(/^([0-9a-f]{40}) blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/gm)) deltas.add(match[1]!);
  }
  return deltas;
}

describe('a cold scan over smart HTTP of definitions stored as deltas', () => {
  it('reads each as committed and refuses the one over the size bound by its size, as a scan of the same repository on disk does', async () => {
    const served = await folder.serve();
    const shared = 'a long shared reason that deltas can reuse '.repeat(12);
    const tools = 40;
    for (let round = 0; round < 6; round++) {
      const files: Record<string, string> = {};
      for (let index = 0; index < tools; index++) files[`tools/t${index}/TOOL.hdlp`] = makeToolYaml(`t${index}`, { why: `round ${round}, ${shared}` });
      // the last two rounds make one definition far larger; git keeps the larger (round 4's) whole and the last as a
      // delta of a few hundred bytes against it
      if (round >= 4) files['tools/t7/TOOL.hdlp'] = makeToolYaml('t7', { why: `round ${round}, ${shared.repeat(round === 4 ? 7 : 6)}` });
      await served.push(files, `round ${round}`);
    }
    await git(served.bare, 'gc', '-q', '--aggressive');
    const big = await git(served.bare, 'rev-parse', 'main:tools/t7/TOOL.hdlp');
    // the server keeps the large definition as a delta (the clone at depth 1 gets it as git's pack-objects chooses)
    expect((await deltaBlobs(served.bare)).has(big)).toBe(true);

    const maxDefinitionBytes = 2048;
    const bigBytes = Number(await git(served.bare, 'cat-file', '-s', big));
    expect(bigBytes).toBeGreaterThan(maxDefinitionBytes);
    const remote = await new Scanner({ repo: served.url, cacheDir: join(folder.path, 'cache-remote'), maxDefinitionBytes }).scan();
    const local = await new Scanner({ repo: served.work, cacheDir: join(folder.path, 'cache-local'), maxDefinitionBytes }).scan();

    // the case under test is there: most definitions the clone holds are deltas
    expect((await deltaBlobs(join(folder.path, 'cache-remote'))).size).toBeGreaterThan(tools / 2);
    expect(remote.tools).toHaveLength(tools - 1);
    expect(remote.errors).toEqual([expect.objectContaining({ file: 'tools/t7/TOOL.hdlp', code: 'FILE_TOO_LARGE' })]);
    expect(remote.errors[0]!.message).toContain(String(bigBytes));
    expect(remote.errors).toEqual(local.errors);
    expect(remote.tools.map((tool) => [tool.name, tool.why])).toEqual(local.tools.map((tool) => [tool.name, tool.why]));
    for (const tool of remote.tools) expect(tool.why).toBe(`round 5, ${shared}`.trim());
  });
});
