import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { MAX_OBJECT_BYTES, PackStore } from '../../src/scanner/sources/pack-store.js';
import { blobId, craftDelta, writeCraftedPack, type CraftedEntry } from '../helpers/crafted-pack.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// A delta base is read whatever it is, and a few kilobytes of copy instructions can state a base of gigabytes: a
// small definition on such a chain made the reader allocate and fill the whole base (1 GiB here) before any check,
// and a loose object of a few kilobytes of zeros inflated without bound. Every object the reader makes is held to
// MAX_OBJECT_BYTES now, checked before anything is allocated: that file is READ_FAILED, the other tools are served.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

const MIB = 1024 * 1024;
const HUGE = 1024 * MIB;
const ZEROS = Buffer.alloc(MIB);
const HUGE_ID = 'b0'.repeat(20);

/** `target` (a definition's blob id) as a small delta on a base that states 1 GiB: 1,024 copies of a 1 MiB blob of zeros. */
function bombEntries(target: string, targetSize = 100): CraftedEntry[] {
  const copies = Buffer.alloc(2 * 1024);
  // copy instruction: no offset bytes (0), one size byte in the third place: 0x10 << 16 = 1 MiB
  for (let at = 0; at < copies.length; at += 2) copies.set([0x80 | 0x40, 0x10], at);
  const insert = Buffer.concat([Buffer.from([targetSize]), Buffer.alloc(targetSize, 0x61)]);
  return [
    { oid: blobId(ZEROS), kind: 'blob', data: ZEROS },
    { oid: HUGE_ID, kind: 'ref-delta', base: blobId(ZEROS), data: craftDelta(MIB, HUGE, copies) },
    { oid: target, kind: 'ref-delta', base: HUGE_ID, data: craftDelta(HUGE, targetSize, insert) },
  ];
}

describe('ObjectReader over objects larger than a read may hold', () => {
  it('refuses a delta whose result states more than MAX_OBJECT_BYTES, before making it', async () => {
    const gitdir = join(temp.path, 'git');
    const target = 'c3'.repeat(20);
    await writeCraftedPack(gitdir, bombEntries(target));
    const packs = new PackStore(gitdir);
    await packs.list();
    const reader = new ObjectReader(gitdir, packs, () => false);
    // the definition's own size is small: only its base is huge
    expect(await reader.size(target)).toBe(100);
    const before = process.memoryUsage().arrayBuffers;
    await expect(reader.read(target)).rejects.toThrow(`git delta: its result of ${HUGE} bytes is over the ${MAX_OBJECT_BYTES} bytes an object read may hold`);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * MIB);
  });

  it('refuses a whole packed object over its limit, and reads one within it', async () => {
    const gitdir = join(temp.path, 'git');
    const big = Buffer.alloc(4096, 0x62);
    const small = Buffer.alloc(1000, 0x63);
    await writeCraftedPack(gitdir, [
      { oid: blobId(big), kind: 'blob', data: big },
      { oid: blobId(small), kind: 'blob', data: small },
    ]);
    const packs = new PackStore(gitdir, undefined, undefined, 2048);
    await packs.list();
    const reader = new ObjectReader(gitdir, packs, () => false, 2048);
    await expect(reader.read(blobId(big))).rejects.toThrow(/an object of 4096 bytes at \d+, over the 2048 bytes an object read may hold/);
    expect((await reader.read(blobId(small))).content.equals(small)).toBe(true);
  });

  it('refuses a loose object that inflates past its limit', async () => {
    const gitdir = join(temp.path, 'git');
    const content = Buffer.alloc(8192);
    const oid = blobId(content);
    await mkdir(join(gitdir, 'objects', oid.slice(0, 2)), { recursive: true });
    await writeFile(join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), deflateSync(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content])));
    const packs = new PackStore(gitdir);
    await packs.list();
    await expect(new ObjectReader(gitdir, packs, () => true, 4096).read(oid)).rejects.toThrow(`loose object ${oid} inflates to more than the 4096 bytes an object read may hold`);
    expect((await new ObjectReader(gitdir, packs, () => true).read(oid)).content.equals(content)).toBe(true);
  });
});

describe('hldp scan of a repository whose definition is a delta on a base stating 1 GiB', () => {
  it('reports READ_FAILED for that file, lists the other tools, and never makes the base', async () => {
    const root = await initRepository(join(temp.path, 'repo'));
    await commitFiles(root, { 'tools/good/TOOL.hdlp': makeToolYaml('good'), 'tools/bomb/TOOL.hdlp': makeToolYaml('bomb') });
    const blob = await git(root, 'rev-parse', 'HEAD:tools/bomb/TOOL.hdlp');
    // the loose blob goes; a pack holds it as a small delta on the huge base
    await rm(join(root, '.git', 'objects', blob.slice(0, 2), blob.slice(2)), { force: true });
    await writeCraftedPack(join(root, '.git'), bombEntries(blob));
    // the child's peak resident memory, printed as it exits
    const peak = join(temp.path, 'peak.mjs');
    await writeFile(peak, "process.on('exit', () => process.stderr.write(`peak-rss-kib ${process.resourceUsage().maxRSS}\\n`));\n");
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', NODE_OPTIONS: `--import=${peak}` };
    const run = await runCli(['scan', '--repo', root, '--json'], { env, timeoutMs: 50_000 });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.tools.map((tool: { name: string }) => tool.name)).toEqual(['good']);
    expect(result.errors).toEqual([expect.objectContaining({ file: 'tools/bomb/TOOL.hdlp', code: 'READ_FAILED', message: expect.stringMatching(/over the \d+ bytes an object read may hold/) })]);
    const peakKib = Number(/peak-rss-kib (\d+)/.exec(run.stderr)?.[1]);
    // a scan of two tools holds ~100-200 MiB; making the base alone was 1 GiB more
    expect(peakKib).toBeGreaterThan(0);
    expect(peakKib * 1024).toBeLessThan(512 * MIB);
  }, 60_000);
});
