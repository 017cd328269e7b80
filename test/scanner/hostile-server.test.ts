import type { RequestListener } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import http from 'isomorphic-git/http/node';
import { describe, expect, it } from 'vitest';
import { FLUSH, packetLine } from '../../src/scanner/sources/pkt-line.js';
import { indexPack } from '../../src/scanner/sources/index-pack.js';
import { discoverUploadPack, fetchPack } from '../../src/scanner/sources/upload-pack.js';
import { blobId, craftDelta, packOf, type CraftedEntry } from '../helpers/crafted-pack.js';
import { testFolder } from '../helpers/test-folder.js';
import { sideBandAnswer, uploadPackHandler } from '../helpers/upload-pack-server.js';

// What a remote sends is hostile input: its answer's size, its pace and its pack's objects are whatever it likes.
// Before these bounds, a server streaming without end filled the scanner's memory, one that stalled held the scan
// (and its lock on the clone) forever, and a pack of a few kilobytes whose deltas each make 64 MiB had every result
// held at once while the pack was indexed. Each server here is a local HTTP server implementing the smart-HTTP contract.

const MIB = 1024 * 1024;
const COMMIT = 'a'.repeat(40);

const folder = testFolder();

/** A local HTTP server answering with `handler`; its repository's URL. */
async function serve(handler: RequestListener): Promise<string> {
  return `${await folder.listen(handler)}/tools.git`;
}

const ADVERTISEMENT = Buffer.concat([
  packetLine('# service=git-upload-pack\n'),
  FLUSH,
  packetLine(`${COMMIT} HEAD\0side-band-64k ofs-delta shallow symref=HEAD:refs/heads/main agent=git/2\n`),
  packetLine(`${COMMIT} refs/heads/main\n`),
  FLUSH,
]);

/** Runs `hldp scan` of `url` as a user would, with the child's peak resident memory printed as it exits. */
async function scanWithPeak(url: string): Promise<{ code: number; stdout: string; stderr: string; peakBytes: number }> {
  const peak = join(folder.path, 'peak.mjs');
  await writeFile(peak, "process.on('exit', () => process.stderr.write(`peak-rss-kib ${process.resourceUsage().maxRSS}\\n`));\n");
  const run = await folder.scan(url, { env: { NODE_OPTIONS: `--import=${peak}` }, timeoutMs: 50_000 });
  return { ...run, peakBytes: Number(/peak-rss-kib (\d+)/.exec(run.stderr)?.[1]) * 1024 };
}

/** A pack of a 1 MiB blob of zeros and `count` deltas of ~140 bytes, each 63 copies of it plus a byte of its own: 63 MiB apiece. */
function manyLargeDeltas(count: number): Buffer {
  const zeros = Buffer.alloc(MIB);
  const copies = Buffer.alloc(2 * 63);
  for (let at = 0; at < copies.length; at += 2) copies.set([0x80 | 0x40, 0x10], at);
  const entries: CraftedEntry[] = [{ oid: blobId(zeros), kind: 'blob', data: zeros }];
  for (let index = 0; index < count; index++) {
    entries.push({ oid: index.toString(16).padStart(40, 'c'), kind: 'ref-delta', base: blobId(zeros), data: craftDelta(MIB, 63 * MIB + 1, Buffer.concat([copies, Buffer.from([1, index])])) });
  }
  return packOf(entries).pack;
}

function serveClone(pack: Buffer): Promise<string> {
  return serve(uploadPackHandler(ADVERTISEMENT, sideBandAnswer(pack)));
}

describe('a clone from a server whose pack makes many large objects (a local HTTP server implementing upload-pack)', () => {
  it('indexes it within bounded memory, then fails that scan plainly: hldp scan exits 2, its peak RSS under 512 MB', async () => {
    // 12 deltas: 756 MiB of distinct objects from a pack of ~3 KB, every result held until the whole pack was resolved
    const run = await scanWithPeak(await serveClone(manyLargeDeltas(12)));
    expect(run.code, run.stderr).toBe(2);
    // the pack is well formed: it is indexed whole, and refused because the commit is not in it
    expect(run.stderr).toContain(`does not hold the commit it advertised for 'main' (${COMMIT})`);
    expect(run.peakBytes).toBeGreaterThan(0);
    expect(run.peakBytes).toBeLessThan(512 * MIB);
  }, 60_000);

  it('refuses a pack that would make more than 1 GiB (16 times a larger pack), before making it all: hldp scan exits 2', async () => {
    // 64 such deltas (4 GiB from ~9 KB) took 74 s of CPU; a 1 MiB pack of them, hours
    const run = await scanWithPeak(await serveClone(manyLargeDeltas(64)));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/its objects would make more than the 1073741824 bytes a pack of \d+ bytes may make here/);
    expect(run.peakBytes).toBeLessThan(512 * MIB);
  }, 60_000);

  it('lets the event loop turn while it indexes: timers (the clone lock refresh among them) and requests still run', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      // indexing this pack was one synchronous piece of seconds
      await expect(indexPack(manyLargeDeltas(20), () => Promise.reject(new Error('no outside objects')))).rejects.toThrow(/would make more than/);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(3);
  }, 60_000);
});

describe('a server whose answer never ends or never comes (a local HTTP server implementing the advertisement)', () => {
  it('hldp scan refuses an advertisement past 8 MiB and closes the connection, its peak RSS under 512 MB', async () => {
    let closed = false;
    const url = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      response.write(ADVERTISEMENT.subarray(0, ADVERTISEMENT.length - 4));
      // one ref line after another, for as long as the client reads
      const line = packetLine(`${COMMIT} refs/tags/${'t'.repeat(900)}\n`);
      const chunk = Buffer.concat(Array.from({ length: 64 }, () => line));
      const more = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      response.once('close', () => (closed = true));
      more();
    });
    const run = await scanWithPeak(url);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('sent more than the 8388608 bytes an answer may have here');
    expect(run.peakBytes).toBeLessThan(512 * MIB);
    await expect.poll(() => closed).toBe(true);
  }, 60_000);

  it('gives up on a server that stops sending for longer than the idle limit, and closes the connection', async () => {
    let closed = false;
    const url = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      response.write(ADVERTISEMENT.subarray(0, 20));
      response.once('close', () => (closed = true));
    });
    const started = Date.now();
    await expect(discoverUploadPack(http, url, {}, { maxBytes: MIB, idleMs: 300, totalMs: 30_000 })).rejects.toThrow(`${url}/info/refs?service=git-upload-pack sent nothing for 0.3 s`);
    expect(Date.now() - started).toBeLessThan(20_000);
    await expect.poll(() => closed).toBe(true);
  });

  it('gives up on a server that answers a byte at a time past the whole limit, and on one that sends no headers', async () => {
    const url = await serve((request, response) => {
      request.resume();
      if (request.method === 'POST') {
        // never answers at all
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      let at = 0;
      const drip = setInterval(() => {
        if (response.destroyed || at >= ADVERTISEMENT.length - 1) return clearInterval(drip);
        response.write(ADVERTISEMENT.subarray(at, ++at));
      }, 50);
    });
    await expect(discoverUploadPack(http, url, {}, { maxBytes: MIB, idleMs: 1_000, totalMs: 600 })).rejects.toThrow('did not answer whole within 0.6 s');
    const offered = new Set(['side-band-64k', 'ofs-delta']);
    await expect(fetchPack(http, url, {}, offered, { want: COMMIT, haves: [], shallows: [] }, { maxBytes: MIB, idleMs: 400, totalMs: 30_000 })).rejects.toThrow('sent nothing for 0.4 s');
  });

  it('refuses a pack answer past its byte limit', async () => {
    const answer = sideBandAnswer(Buffer.alloc(2 * MIB, 1));
    const url = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
      response.end(answer);
    });
    const offered = new Set(['side-band-64k']);
    await expect(fetchPack(http, url, {}, offered, { want: COMMIT, haves: [], shallows: [] }, { maxBytes: MIB, idleMs: 5_000, totalMs: 30_000 })).rejects.toThrow(`sent more than the ${MIB} bytes an answer may have here`);
  });
});

describe("a server's refusal that holds terminal escapes (a local HTTP server implementing the advertisement)", () => {
  it('hldp scan prints its ERR line with every control escaped, so it cannot clear the screen or set the title (review I F5)', async () => {
    const refusal = 'ERR \x1b]0;TITLE-SET-BY-SERVER\x07\x1b[2J\x1b[31mthe screen was cleared\x1b[0m\u202e\n';
    const url = await serve((request, response) => {
      request.resume();
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' }).end(ADVERTISEMENT);
      } else {
        response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' }).end(packetLine(refusal));
      }
    });
    const run = await folder.scan(url);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the server refused the fetch: \\x1b]0;TITLE-SET-BY-SERVER\\x07\\x1b[2J\\x1b[31mthe screen was cleared\\x1b[0m\\u202e');
    expect(run.stderr).not.toMatch(/[\x07\x1b\u202e]/);
  });
});
