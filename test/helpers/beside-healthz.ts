import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'vitest';

/** A connected socket to the server, its request not yet written. */
async function opened(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

interface Answer {
  head: string;
  body: string;
  bodyBytes: Buffer;
}

/** GET `path` (with `headers`) on a connection of its own: a promise of its whole answer, head and body, and whether it has come. */
async function sent(url: string, path: string, headers: Record<string, string>): Promise<{ answer: Promise<Answer>; done: () => boolean }> {
  const socket = await opened(url);
  const chunks: Buffer[] = [];
  let ended = false;
  const answer = new Promise<Answer>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      ended = true;
      const bytes = Buffer.concat(chunks);
      const split = bytes.indexOf('\r\n\r\n');
      resolve({ head: bytes.subarray(0, split).toString('utf8'), body: bytes.subarray(split + 4).toString('utf8'), bodyBytes: bytes.subarray(split + 4) });
    });
  });
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n${extra}Connection: close\r\n\r\n`);
  return { answer, done: () => ended };
}

/** Sends GET `path` and a /healthz beside it, asserting nothing of their order (PostgreSQL's probe makes a round trip as the read does): `path`'s whole answer. */
export async function readBesideHealthz(url: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const read = await sent(url, path, headers);
  const health = await fetch(`${url}/healthz`);
  expect(health.status).toBe(200);
  return read.answer;
}

/**
 * Review Z9, Z9-7: the order of two requests sent at once is the scheduler's on a loaded host; here it is the test's.
 * The server at `url` was started with HLDP_TEST_HOLD_STORE_READS=`folder` (src/store/held-for-test.ts): GET `path`
 * is sent, and each read the store's thread makes for it is held there until a /healthz, asked while the read is
 * held, has been answered 200, and only then let go. So the read must reach the store's thread (an answer that comes
 * with no read held was read on the event loop: it fails), and the event loop must be free while the thread reads (a
 * /healthz not answered within `healthzMs` fails; the held read waits for it as long as that). `path`'s whole answer.
 */
export async function readWhileHeld(url: string, folder: string, path: string, headers: Record<string, string> = {}, healthzMs = 90_000): Promise<Answer> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'hold'), '');
  const released = new Set<string>();
  try {
    const read = await sent(url, path, headers);
    for (;;) {
      const held = (await readdir(folder)).filter((name) => name.startsWith('held-') && !released.has(name));
      for (const name of held) {
        const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(healthzMs) });
        expect(health.status, `a /healthz asked while the store's thread held a read of ${path}`).toBe(200);
        await writeFile(join(folder, `release-${name.slice('held-'.length)}`), '');
        released.add(name);
      }
      if (held.length > 0) continue;
      // read again until the answer has come: a thread's read is said by its file before it reads
      if (read.done()) break;
      await Promise.race([read.answer, new Promise((resolve) => setTimeout(resolve, 20))]);
    }
    expect(released.size, `reads of ${path} held in the store's thread while /healthz was answered (none: it was read on the event loop)`).toBeGreaterThan(0);
    return await read.answer;
  } finally {
    await rm(join(folder, 'hold'), { force: true });
  }
}

/**
 * The CPU time (user and system, ms, at the kernel's 10 ms tick) the main thread of process `pid` — the one its event
 * loop runs on — has used so far (Linux: /proc/PID/task/PID/stat). What work an answer did on the event loop is told by
 * it, as no order of two requests can tell a stall that ends (review Z12, Z12-7): a figure the load does not stretch,
 * as a wall-clock time is.
 */
export async function loopCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  // the fields after the command's name, which may hold spaces and parentheses: utime and stime are the 12th and 13th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * Waits until the gateway at `url` (process `pid`) has nothing of its start left to do on its event loop — /healthz says
 * intent matching is ready, and its main thread then spends at most `quietMs` of CPU in each of two 300 ms spells — so
 * that a loopCpuMs figure taken after weighs the request it is taken around and not the tail of the start: intent
 * matching is prepared in the event loop's idle turns after the gateway listens, several hundred ms of CPU that a slow
 * host spreads past the first requests (CI's run of c842e005: a 60 ms read weighed 490 ms). `headers` let /healthz
 * tell its details (a gateway with principals tells them only to one). Fails after `withinMs`.
 */
export async function settled(url: string, pid: number, { headers = {}, quietMs = 20, withinMs = 60_000 }: { headers?: Record<string, string>; quietMs?: number; withinMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + withinMs;
  let matching: unknown;
  while (Date.now() < deadline) {
    matching = ((await (await fetch(`${url}/healthz`, { headers })).json()) as { matching?: unknown }).matching;
    if (matching === 'ready') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(matching, `GET /healthz's matching within ${withinMs} ms of the start`).toBe('ready');
  let quiet = 0;
  let last = await loopCpuMs(pid);
  while (quiet < 2) {
    if (Date.now() > deadline) throw new Error(`the gateway's main thread did not settle within ${withinMs} ms of its start (over ${quietMs} ms of CPU in every 300 ms)`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = await loopCpuMs(pid);
    quiet = now - last <= quietMs ? quiet + 1 : 0;
    last = now;
  }
}
