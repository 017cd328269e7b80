import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_APPENDED_BYTES } from '../../src/scanner/sources/index-pack.js';
import { MAX_OBJECT_BYTES } from '../../src/scanner/sources/pack-store.js';
import { makeToolYaml } from '../helpers/git.js';
import { startGitHttpFront } from '../helpers/git-http-front.js';
import { runCli } from '../helpers/run-cli.js';
import type { ServedRepository } from '../helpers/served-repository.js';
import { testFolder } from '../helpers/test-folder.js';

// Found reviewing review G's F4 (d6662ce): a fetch's thin pack sends a changed file as a delta on its old version,
// which the clone must give. Past 128 MiB of such bases the fetch was refused, and so was a delta on a file over the
// 64 MiB a read may hold; the clone never moved, so every later fetch said the same `have` and was refused the same
// way, for good: a push that changed three 48 MiB files under tools/ did it (two of 64 MiB come to exactly 128 MiB,
// which passes unless a tree is sent as a delta too). Now the clone is started over in that scan.

const MIB = 1024 * 1024;
const SCAN_TIMEOUT_MS = 110_000;

const folder = testFolder('hldp-thin-start-over-');

/** `size` bytes of `fill` with `mark` at the middle: a push that changes the mark sends a delta of a few bytes on the old file. */
function largeFile(size: number, fill: number, mark: number): Buffer {
  const bytes = Buffer.alloc(size, fill);
  bytes[size >> 1] = mark;
  return bytes;
}

/** Large files beside tool alpha's definition, each with `mark` at its middle. */
function largeFiles(sizes: number[], mark: number): Record<string, Buffer> {
  return Object.fromEntries(sizes.map((size, index) => [`tools/alpha/weights-${index}.bin`, largeFile(size, index + 1, mark)]));
}

/** A bare repository served by `git http-backend`, holding tool alpha and `sizes` large files, and a clone to push from. */
async function served(sizes: number[]): Promise<{ url: string; push: ServedRepository['push'] }> {
  const { url, push } = await folder.serve();
  await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), ...largeFiles(sizes, 0) });
  return { url, push };
}

// without HLDP_LOG_LEVEL: a scan that succeeds writes nothing to stderr at the default level either
function scan(url: string) {
  return runCli(['scan', '--repo', url, '--json'], { env: { HLDP_CACHE_DIR: join(folder.path, 'cache'), HLDP_DATA_DIR: join(folder.path, 'data') }, timeoutMs: SCAN_TIMEOUT_MS });
}

function scanned(stdout: string): { commit: string; tools: string[] } {
  const result = JSON.parse(stdout) as { commit: string; tools: { name: string }[] };
  return { commit: result.commit, tools: result.tools.map((tool) => tool.name) };
}

async function packsOfClone(): Promise<number> {
  for (const entry of await readdir(join(folder.path, 'cache'), { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() && entry.name === 'pack') return (await readdir(join(entry.parentPath, entry.name))).filter((name) => name.endsWith('.pack')).length;
  }
  throw new Error('no clone under the cache');
}

describe('a fetch refused for what its thin pack needs of the clone is followed by a fresh clone in that scan (git http-backend)', () => {
  it('after a push that changed three 48 MiB files (144 MiB of bases, over the 128 MiB a fetch may append): the scan sees the new commit, and a later push is fetched on top', async () => {
    const sizes = [48 * MIB, 48 * MIB, 48 * MIB];
    expect(sizes.reduce((sum, size) => sum + size)).toBeGreaterThan(MAX_APPENDED_BYTES);
    const { url, push } = await served(sizes);
    expect((await scan(url)).code).toBe(0);
    const head = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta'), ...largeFiles(sizes, 9) });
    // main: "cannot fetch …: fetched pack: its deltas are on 150994… bytes of objects from outside it, over the 134217728 …", at this scan and every later one
    const second = await scan(url);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(scanned(second.stdout)).toEqual({ commit: head, tools: ['alpha', 'beta'] });
    expect(await packsOfClone()).toBe(1);
    const later = await push({ 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') });
    const third = await scan(url);
    expect(third.code).toBe(0);
    expect(scanned(third.stdout)).toEqual({ commit: later, tools: ['alpha', 'beta', 'gamma'] });
    expect(await packsOfClone()).toBe(2);
  }, 300_000);

  it('after a push that changed a 72 MiB file (a delta on an object over the 64 MiB a read may hold), when the fresh clone fails too: the scan fails saying both, the old clone stays, and the next scan sees the new commit', async () => {
    const sizes = [72 * MIB];
    expect(sizes[0]).toBeGreaterThan(MAX_OBJECT_BYTES);
    const { url: real, push } = await served(sizes);
    let posts = 0;
    let failClone = false;
    // the refused fetch is the first POST, the fresh clone's the second
    const front = folder.closeAfter(
      await startGitHttpFront(real, {
        intercept: ({ method }) => (failClone && method === 'POST' && ++posts === 2 ? { status: 500, contentType: '', body: Buffer.from('upload-pack failed') } : undefined),
      }),
    );
    const first = await scan(front.url);
    expect(first.code).toBe(0);
    const head = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta'), ...largeFiles(sizes, 9) });
    failClone = true;
    // main: "cannot fetch …: pack pack-…: an object of 75497472 bytes at …, over the 67108864 bytes an object read may hold", for good
    const second = await scan(front.url);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^hldp scan: cannot clone http:\/\/127\.0\.0\.1:\d+\/tools\.git: HTTP 500 \(a fresh clone, since the fetch was refused: fetched pack: a delta on [0-9a-f]{40}, which the clone cannot give: pack pack-[0-9a-f]{40}: an object of 75497472 bytes at \d+, over the 67108864 bytes an object read may hold\)\n$/);
    expect(posts).toBe(2);
    expect(await packsOfClone()).toBe(1);
    failClone = false;
    const third = await scan(front.url);
    expect(third.code).toBe(0);
    expect(scanned(third.stdout)).toEqual({ commit: head, tools: ['alpha', 'beta'] });
  }, 300_000);
});
