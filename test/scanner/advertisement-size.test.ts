import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLUSH, packetLine } from '../../src/scanner/sources/pkt-line.js';
import { parseAdvertisement } from '../../src/scanner/sources/upload-pack.js';
import { git, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// A ref advertisement of up to 64 MiB (a million refs) was parsed in one synchronous loop into a Map of every ref, at
// every head check: ~10 s in which no request was served (review G, F9). A head check reads the branches alone: the
// advertisement may now be 8 MiB, every line is still checked, only `refs/heads/*` are kept, and the event loop turns
// every few thousand lines. (`hostile-server.test.ts` holds a real `hldp scan` refusing one past 8 MiB.)

const COMMIT = 'a'.repeat(40);

const folder = testFolder();

describe('an advertisement of many refs', () => {
  it('is read with the event loop turning, and keeps the branches alone', async () => {
    const lines = [packetLine('# service=git-upload-pack\n'), FLUSH, packetLine(`${COMMIT} HEAD\0side-band-64k symref=HEAD:refs/heads/main\n`), packetLine(`${COMMIT} refs/heads/main\n`)];
    // ~7 MiB: 110,000 tags, within the limit
    for (let index = 0; index < 110_000; index++) lines.push(packetLine(`${COMMIT} refs/tags/v${String(index).padStart(6, '0')}\n`));
    lines.push(FLUSH);
    const body = Buffer.concat(lines);
    expect(body.length).toBeLessThan(8 * 1024 * 1024);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const advertisement = await parseAdvertisement(body);
      expect(advertisement.refs).toEqual(new Map([['refs/heads/main', COMMIT]]));
      expect(advertisement.capabilities).toContain('symref=HEAD:refs/heads/main');
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('hldp scan of a real repository with 100,000 tags (git http-backend) succeeds', async () => {
    const { url, bare, push } = await folder.serve();
    const commit = await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    // written as git's packed-refs (one line a ref, sorted), as `git pack-refs` leaves a repository's tags
    const tags = Array.from({ length: 100_000 }, (_, index) => `${commit} refs/tags/t${String(index).padStart(6, '0')}\n`);
    await writeFile(join(bare, 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted \n${tags.join('')}`);
    expect(await git(bare, 'rev-parse', 'refs/tags/t099999')).toBe(commit);
    const run = await folder.scan(url, { timeoutMs: 50_000 });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { commit: string; tools: Array<{ name: string }> };
    expect(result.tools.map((tool) => tool.name)).toEqual(['alpha']);
  }, 60_000);
});
