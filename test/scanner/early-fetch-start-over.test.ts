import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { PackWriter } from '../helpers/crafted-pack.js';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';
import { sideBandAnswer } from '../helpers/upload-pack-server.js';

// Review I, S1: a signed push's fetch, sent beside the head check, whose thin pack the clone cannot complete (a delta
// on a base it lacks) starts the clone over in that scan. The early fetch's answer — up to a pack's limit, 1 GiB —
// was held until the fresh clone had fetched and indexed a whole new pack: two packs' worth at the peak. A real
// `git http-backend` behind a front that answers the early fetch with such a pack; what the scanning process holds
// is measured when the fresh clone's POST arrives.

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const folder = testFolder('hldp-early-start-over-');
const MIB = 1024 * 1024;
const HELD_PACK_BYTES = 48 * MIB;

/** The bytes of what Node holds outside the heap (buffers), after full collections (V8 frees their memory a little after each). */
async function heldBuffers(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().arrayBuffers;
}

/** A thin pack of `size` incompressible bytes and a delta on an object no clone holds: refused for its base. */
function refusedPack(size: number): Buffer {
  const writer = new PackWriter();
  const blob = randomBytes(size);
  writer.whole('blob', blob, deflateSync(blob, { level: 0 }));
  writer.ref('ab'.repeat(20), Buffer.from([1, 1, 0x90, 1]));
  return writer.finish();
}

async function body(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('a signed push whose early fetch is refused for its thin pack', () => {
  it('lets that pack go before the fresh clone: the scan sees the new commit, and the clone is fetched without it held', async () => {
    const { url: real, push } = await folder.serve();
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const origin = new URL(real).origin;
    let craft = false;
    const heldAtClone: number[] = [];
    let baseline = 0;
    const front = await folder.listen((request, response) => {
      void (async () => {
        const sent = await body(request);
        if (request.method === 'POST' && craft && sent.includes('have ')) {
          // the early fetch: answered with the pack the clone cannot complete
          craft = false;
          response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
          response.end(sideBandAnswer(refusedPack(HELD_PACK_BYTES)));
          return;
        }
        if (request.method === 'POST' && sent.includes('deepen 1')) heldAtClone.push((await heldBuffers()) - baseline);
        const answer = await fetch(`${origin}${request.url}`, { method: request.method, headers: { 'content-type': String(request.headers['content-type'] ?? '') }, ...(request.method === 'POST' ? { body: sent } : {}) });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
    const scanner = new Scanner({ repo: `${front}/tools.git`, cacheDir: join(folder.path, 'cache') });
    await scanner.scan();
    heldAtClone.length = 0;
    const head = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    craft = true;
    baseline = await heldBuffers();
    const index = await scanner.scan({ ref: 'refs/heads/main', after: head });
    expect(index.commit).toBe(head);
    expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    // the fresh clone's POST came (the refusal started the clone over), and by then the refused pack was let go
    // (main: the 48 MiB pack and more still held)
    expect(heldAtClone).toHaveLength(1);
    expect(heldAtClone[0]!).toBeLessThan(HELD_PACK_BYTES / 2);
    await scanner.flush();
  }, 120_000);
});
