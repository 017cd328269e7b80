// Issue #18, "no stall over 50 ms": a read of the receipt log must not hold `hldp serve`'s event loop. A walk of the
// chain (GET /v1/receipts/verify) on SQLite read and hashed every row on the event loop, 5,000 rows a page: a /healthz
// sent right after it waited for the whole walk (1.2 s over 100 receipts of 1 MB). The walk now runs in a thread of
// its own, a page bounded in bytes at a time, on SQLite and on PostgreSQL (where a 10,000-row cursor page of rows under
// 256 KiB was held, parsed and hashed on the event loop at once). A page of GET /v1/receipts (4 MiB of stored text at
// most) was read, parsed and made JSON again on the event loop; its stored texts are now sent as they are, and on
// SQLite a page with much text is read by the writer thread.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { openStore } from '../../src/store/index.js';
import { readBesideHealthz, readWhileHeld } from '../helpers/beside-healthz.js';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { useServiceHome, type ServiceHome } from '../helpers/serve-process.js';
import { makeReceipt } from '../store/support.js';

const LARGE = 16;
const MIDDLING = 8;

/** Stores LARGE receipts of 1 MB of output and MIDDLING of 200 KB (under the writer thread's threshold): them, newest first. */
async function seed(home: ServiceHome, url: string | undefined): Promise<Receipt[]> {
  const store = await openStore({ sqlitePath: join(home.path, 'data', 'receipts.db'), ...(url ? { url } : {}) });
  const saved: Receipt[] = [];
  try {
    for (let at = 0; at < LARGE + MIDDLING; at += 1) {
      const bytes = at % 3 === 2 ? 200_000 : 1_000_000;
      const when = new Date(Date.parse('2026-12-01T00:00:00.000Z') + at * 1000).toISOString();
      const receipt = makeReceipt({ id: `call-${String(at).padStart(3, '0')}`, output: `${at}:`.padEnd(bytes, 'x'), output_bytes: bytes, started_at: when, finished_at: when });
      await store.receipts.save(receipt);
      saved.unshift(receipt);
    }
  } finally {
    await store.close();
  }
  return saved;
}

/** Serves `home` over its seeded store (SQLite, or PostgreSQL at `url`). */
async function served(home: ServiceHome, url: string | undefined) {
  const repo = join(home.path, 'repo');
  await writeFiles(repo, { 'tools/small/TOOL.hdlp': makeToolYaml('small', { executor: 'shell', shell: '{ argv: [echo, small] }' }) });
  return home.serve(['--repo', repo], { HLDP_TEST_HOLD_STORE_READS: holds(home), ...(url ? { HLDP_STORE_URL: url } : {}) });
}

/** Where the server's store thread says which read it holds (src/store/held-for-test.ts). */
const holds = (home: ServiceHome): string => join(home.path, 'holds');

// GET path beside a /healthz (test/helpers/beside-healthz.ts), the /healthz answered while the store's thread holds
// the read when `healthzFirst`: its answer whole again, head and body
async function readBeside(home: ServiceHome, url: string, path: string, healthzFirst: boolean): Promise<string> {
  const { head, body } = healthzFirst ? await readWhileHeld(url, holds(home), path) : await readBesideHealthz(url, path);
  return `${head}\r\n\r\n${body}`;
}

/** The JSON body of an answer sent with Connection: close (chunked or not). */
function bodyOf(answer: string): unknown {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  if (!/transfer-encoding: chunked/i.test(head!)) return JSON.parse(body);
  let text = '';
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (size === 0) return JSON.parse(text);
    text += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * `pageFirst`: whether each page must be read by the store's thread, a /healthz answered while it is held there. On
 * PostgreSQL a page is read on the store's own connection, not by the thread: there the page is checked for its
 * contents only.
 */
function suite(home: ServiceHome, database: () => Promise<{ url: string; drop: () => Promise<void> } | undefined>, pageFirst: boolean): void {
  it('answers a /healthz while the walk of GET /v1/receipts/verify is held in its thread, and the report is whole', async () => {
    const made = await database();
    try {
      await seed(home, made?.url);
      const server = await served(home, made?.url);
      const answer = await readBeside(home, server.url, '/v1/receipts/verify', true);
      expect(bodyOf(answer)).toMatchObject({ ok: true, checked: LARGE + MIDDLING, checkpoint: { seq: 0 }, head: { seq: LARGE + MIDDLING } });
      await server.stop();
    } finally {
      await made?.drop();
    }
  }, 180_000);

  it(`${pageFirst ? "answers a /healthz while the store's thread holds each page of GET /v1/receipts; " : ''}every page holds what it held`, async () => {
    const made = await database();
    try {
      const saved = await seed(home, made?.url);
      const server = await served(home, made?.url);
      const pages: Array<{ receipts: Receipt[]; limit: number; offset: number; next_offset: number | null; max_bytes: number; ended_early?: true }> = [];
      for (let next: number | null = 0; next !== null; ) {
        const answer = await readBeside(home, server.url, `/v1/receipts?limit=1000&offset=${next}`, pageFirst);
        pages.push(bodyOf(answer) as (typeof pages)[number]);
        next = pages.at(-1)!.next_offset;
      }
      // as before: newest first, whole, each page ending before the receipt that would take it past 4 MiB of stored
      // text, next_offset the receipts so far; 1 MB and 200 KB receipts: at least 3 to a page
      expect(pages.flatMap((page) => page.receipts)).toEqual(saved);
      let offset = 0;
      for (const [at, page] of pages.entries()) {
        const last = at === pages.length - 1;
        expect(page).toMatchObject({ limit: 1000, offset, next_offset: last ? null : offset + page.receipts.length, max_bytes: 4 * 1024 * 1024 });
        expect(page.ended_early).toBe(last ? undefined : true);
        if (!last) expect(page.receipts.length).toBeGreaterThanOrEqual(3);
        offset += page.receipts.length;
      }
      await server.stop();
    } finally {
      await made?.drop();
    }
  }, 180_000);
}

describe('hldp serve on SQLite reading a log of large receipts', () => {
  const home = useServiceHome('warn');
  suite(home, async () => undefined, true);
});

describeWithPostgres('hldp serve on PostgreSQL reading a log of large receipts', () => {
  const home = useServiceHome('warn');
  suite(home, createTestDatabase, false);
});
