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

/** The blobs that the bare repository's pack holds as deltas (`git verify-pack -v`: an entry with a base). */
async function deltaBlobs(bare: string): Promise<Set<string>> {
  const packDir = join(bare, 'objects', 'pack');
  const [index] = (await readdir(packDir)).filter((name) => name.endsWith('.idx'));
  const { stdout } = await execFileAsync('git', ['verify-pack', '-v', join(packDir, index!)], { maxBuffer: 1 << 26 });
  return new Set([...stdout.matchAll(/^([0-9a-f]{40}) blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/gm)].map((match) => match[1]!));
}

describe('a cold scan over smart HTTP of definitions stored as deltas', () => {
  it('reads each as committed and refuses the one over the size bound by its size, as a scan of the same repository on disk does', async () => {
    const served = await folder.serve();
    const shared = 'a long shared reason that deltas can reuse '.repeat(12);
    const tools = 40;
    for (let round = 0; round < 6; round++) {
      const files: Record<string, string> = {};
      for (let index = 0; index < tools; index++) files[`tools/t${index}/TOOL.hdlp`] = makeToolYaml(`t${index}`, { why: `round ${round}, ${shared}` });
      // the last round makes one definition far larger: a delta of a few hundred bytes against its earlier self
      if (round === 5) files['tools/t7/TOOL.hdlp'] = makeToolYaml('t7', { why: `round ${round}, ${shared.repeat(6)}` });
      await served.push(files, `round ${round}`);
    }
    await git(served.bare, 'gc', '-q', '--aggressive');
    const big = await git(served.bare, 'rev-parse', 'main:tools/t7/TOOL.hdlp');
    const deltas = await deltaBlobs(served.bare);
    // the case under test is there: the large definition and most others are deltas in what the server sends from
    expect(deltas.has(big)).toBe(true);
    expect(deltas.size).toBeGreaterThan(tools);

    const maxDefinitionBytes = 2048;
    const bigBytes = Number(await git(served.bare, 'cat-file', '-s', big));
    expect(bigBytes).toBeGreaterThan(maxDefinitionBytes);
    const remote = await new Scanner({ repo: served.url, cacheDir: join(folder.path, 'cache-remote'), maxDefinitionBytes }).scan();
    const local = await new Scanner({ repo: served.work, cacheDir: join(folder.path, 'cache-local'), maxDefinitionBytes }).scan();

    expect(remote.tools).toHaveLength(tools - 1);
    expect(remote.errors).toEqual([expect.objectContaining({ file: 'tools/t7/TOOL.hdlp', code: 'FILE_TOO_LARGE' })]);
    expect(remote.errors[0]!.message).toContain(String(bigBytes));
    expect(remote.errors).toEqual(local.errors);
    expect(remote.tools.map((tool) => [tool.name, tool.why])).toEqual(local.tools.map((tool) => [tool.name, tool.why]));
    for (const tool of remote.tools) expect(tool.why).toBe(`round 5, ${shared}`.trim());
  });
});
