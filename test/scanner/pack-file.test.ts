import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { sortedOffsets, WINDOW_BYTES, WINDOWS } from '../../src/scanner/sources/pack-file.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { Scanner } from '../../src/scanner/index.js';
import { blobId, writeCraftedPack } from '../helpers/crafted-pack.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

// The scanner read a pack whole before reading any object of it (~20 MB at 100,000 tools, held through the reading
// and garbage until a full collection after it): it now reads a window at a time, each entry bounded by the next
// entry's offset in the index.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

describe('PackStore over a pack many windows long', () => {
  it('reads every object right while holding no more of the pack than its windows', async () => {
    const gitdir = join(temp.path, 'git');
    // incompressible blobs: the pack is ~6 MB, three times what its windows hold
    const blobs = Array.from({ length: 96 }, (_, index) => randomBytes(index % 3 === 0 ? 150_000 : 40_000));
    await writeCraftedPack(gitdir, blobs.map((data) => ({ oid: blobId(data), kind: 'blob' as const, data })));
    const packs = new PackStore(gitdir);
    await packs.list();
    const reader = new ObjectReader(gitdir, packs, () => false);
    let most = 0;
    // in pack order, then backwards, then one by one far apart
    const order = [...blobs.keys(), ...[...blobs.keys()].reverse(), ...[...blobs.keys()].map((index) => (index * 37) % blobs.length)];
    for (const index of order) {
      const blob = blobs[index]!;
      expect(await reader.size(blobId(blob))).toBe(blob.length);
      expect((await reader.read(blobId(blob))).content.equals(blob), `blob ${index}`).toBe(true);
      most = Math.max(most, packs.held.windowBytes);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(WINDOWS * WINDOW_BYTES);
    packs.release();
    expect(packs.held).toMatchObject({ packs: 0, windowBytes: 0 });
  });

  it('reads a repository git packed as git does, every definition at once, within its windows', async () => {
    const root = join(temp.path, 'repo');
    await initRepository(root);
    const files: Record<string, string> = {};
    for (let index = 0; index < 100; index++) files[`tools/t${index}/TOOL.hdlp`] = makeToolYaml(`t${index}`, { why: `number ${index}` });
    await commitFiles(root, files);
    await git(root, 'gc', '-q');
    const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
    const snapshot = await scanner.source.snapshot();
    const entries = await snapshot.listEntries();
    const read = await Promise.all(entries.map((entry) => snapshot.read(entry)));
    for (const [position, file] of read.entries()) {
      expect('content' in file && Buffer.from(file.content).toString('utf8').trim(), entries[position]!.folder).toBe(await git(root, 'show', `HEAD:tools/${entries[position]!.folder}/TOOL.hdlp`));
    }
    const packs = (scanner.source as unknown as { store: { packs: PackStore } }).store.packs;
    expect(packs.held.windowBytes).toBeLessThanOrEqual(WINDOWS * WINDOW_BYTES);
    snapshot.release?.();
  });
});

describe('sortedOffsets', () => {
  it("lists a git index's offsets in the pack's order", async () => {
    const root = join(temp.path, 'repo');
    await initRepository(root);
    await commitFiles(root, { 'tools/a/TOOL.hdlp': makeToolYaml('a'), 'tools/b/TOOL.hdlp': makeToolYaml('b') });
    await git(root, 'gc', '-q');
    const folder = join(root, '.git', 'objects', 'pack');
    const [index] = (await readdir(folder)).filter((name) => name.endsWith('.idx'));
    const verified = await git(root, 'verify-pack', '-v', join(folder, index!));
    const expected = [...verified.matchAll(/^[0-9a-f]{40} \w+ +\d+ \d+ (\d+)/gm)].map((match) => Number(match[1])).sort((a, b) => a - b);
    expect([...sortedOffsets(await readFile(join(folder, index!)))]).toEqual(expected);
  });
});
