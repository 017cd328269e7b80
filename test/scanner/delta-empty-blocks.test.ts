// Review Z17-8: a definition stored as a delta is sized from its delta's head before it is made (a huge one is refused
// unread), and that head was the first 512 compressed bytes inflated. A zlib stream may open with empty stored blocks
// (5 bytes each, making nothing): past 512 bytes of them the head said no size, and the object was built — up to the
// 64 MiB an object read may hold, where the definition's bound is 1 MiB — and one stating more failed the read
// instead of being refused for its size. The head is now inflated on, a piece at a time, until it says the size.
// The repository is a real one on disk; its pack holding such deltas is written by our own writer (git never opens a
// stream so, and its index-pack would refuse the ids that need not match here).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { blobId, craftDelta, writeCraftedPack } from '../helpers/crafted-pack.js';
import { commitFiles, git, initRepository, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-delta-empty-blocks-');

const KIB = 1024;
const MIB = 1024 * KIB;

/** `data`'s zlib stream opening with `blocks` empty stored blocks (zlib reads it as it reads any other). */
function openingWithEmptyBlocks(data: Buffer, blocks: number): Buffer {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  const empty = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);
  return Buffer.concat([Buffer.from([0x78, 0x01]), ...new Array<Buffer>(blocks).fill(empty), deflateRawSync(data), adler]);
}

/**
 * A delta on a 64 KiB base making `copies` copies of it, then 520 inserts of 127 bytes: the delta itself is over
 * 64 KiB (a smaller one is inflated whole to be sized, and never met the 512 bytes), its result `copies` × 64 KiB + 66,040 bytes.
 */
function bigDelta(base: Buffer, copies: number): { delta: Buffer; size: number; result: () => Buffer } {
  const insert = Buffer.concat([Buffer.from([127]), Buffer.alloc(127, 0x61)]);
  const size = copies * base.length + 520 * 127;
  const delta = craftDelta(base.length, size, Buffer.concat([Buffer.alloc(copies, 0x80), ...new Array<Buffer>(520).fill(insert)]));
  return { delta, size, result: () => Buffer.concat([...new Array<Buffer>(copies).fill(base), Buffer.alloc(520 * 127, 0x61)]) };
}

describe('a definition stored as a delta whose zlib stream opens with empty blocks (review Z17-8)', () => {
  it('is refused for the size its delta states, unmade, as one whose stream does not', { timeout: 120_000 }, async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/fine/TOOL.hdlp': makeToolYaml('fine') });
    const base = Buffer.alloc(64 * KIB, 0x62);
    const baseId = blobId(base);
    // a result of ~2 MiB, its id its own: read whole, it is a blob git would give (and the id check passes)
    const medium = bigDelta(base, 32);
    const mediumId = blobId(medium.result());
    // one stating ~100 MiB, past what an object read may hold: its id is never checked
    const huge = bigDelta(base, 1600);
    const hugeId = 'ee'.repeat(20);
    await writeCraftedPack(join(repo, '.git'), [
      { oid: baseId, kind: 'blob', data: base },
      { oid: mediumId, kind: 'ref-delta', base: baseId, data: medium.delta, compressed: openingWithEmptyBlocks(medium.delta, 300) },
      { oid: hugeId, kind: 'ref-delta', base: baseId, data: huge.delta, compressed: openingWithEmptyBlocks(huge.delta, 300) },
    ]);
    // the tools' tree names them (mktree --missing: git does not look into the crafted pack)
    const tree = (entries: string[]): Promise<string> => mktree(repo, entries);
    const definition = async (oid: string): Promise<string> => tree([`100644 blob ${oid}\tTOOL.hdlp`]);
    const fine = await git(repo, 'rev-parse', 'HEAD:tools/fine');
    const tools = await tree([`040000 tree ${fine}\tfine`, `040000 tree ${await definition(mediumId)}\tmedium`, `040000 tree ${await definition(hugeId)}\thuge`]);
    const root = await tree([`040000 tree ${tools}\ttools`]);
    const commit = await git(repo, 'commit-tree', root, '-p', 'HEAD', '-m', 'two deltas opening with empty blocks');
    await git(repo, 'update-ref', 'refs/heads/main', commit);

    const index = await new Scanner({ repo, cacheDir: join(folder.path, 'cache') }).scan();
    expect(index.tools.map((tool) => tool.name)).toEqual(['fine']);
    const errors = index.errors.map(({ file, code, message }) => ({ file, code, message }));
    expect(errors).toEqual([
      { file: 'tools/huge/TOOL.hdlp', code: 'FILE_TOO_LARGE', message: expect.stringContaining(`TOOL.hdlp is ${huge.size} bytes; the limit is ${MIB}`) },
      { file: 'tools/medium/TOOL.hdlp', code: 'FILE_TOO_LARGE', message: expect.stringContaining(`TOOL.hdlp is ${medium.size} bytes; the limit is ${MIB}`) },
    ]);
    // answered by its size, unmade (the scan's answer is the same for one made and then refused by the parse)
    const packs = new PackStore(join(repo, '.git'));
    await packs.list();
    const readElsewhere = () => Promise.reject(new Error('no base outside the pack'));
    expect(await packs.readUpTo(mediumId, MIB, (oid) => packs.read(oid, readElsewhere).then((found) => found ?? readElsewhere()))).toBe(medium.size);
    expect(await packs.size(hugeId)).toBe(huge.size);
    // read whole, it is what its delta makes
    expect((await packs.read(mediumId, (oid) => packs.read(oid, readElsewhere).then((found) => found ?? readElsewhere())))?.content.equals(medium.result())).toBe(true);
    packs.release();
  });
});

/** `git mktree --missing` of `entries` (`<mode> <type> <oid>\t<name>` lines). */
function mktree(repo: string, entries: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', ['mktree', '--missing'], { cwd: repo }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
    child.stdin!.end(`${entries.join('\n')}\n`);
  });
}
