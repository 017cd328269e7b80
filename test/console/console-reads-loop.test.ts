// Issue #18, "no stall over 50 ms", applied to the console's reads: its calls list parsed every stored receipt of a
// page (4 MiB, or one receipt of any size) on `hldp serve`'s event loop, its search scanned up to 16 MiB of stored
// calls there (SQLite answers synchronously) and parsed what it found, and a receipt's view read, parsed and rendered
// the whole receipt there: a /healthz sent beside it waited for all of it. The list and the search now read only the
// fields a row shows (the database reads them out of the stored text; SQLite's in the writer thread for a page or a
// search with much text), and a receipt's view is read, parsed and cut for display in the writer thread, each cut said
// with a link to the whole raw bytes. A real `hldp serve` over receipts of 3 MB of output.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { openStore } from '../../src/store/index.js';
import { readBesideHealthz, readWhileHeld } from '../helpers/beside-healthz.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { useServiceHome, type ServiceHome } from '../helpers/serve-process.js';
import { makeReceipt } from '../store/support.js';

const MB = 3_000_000;
/** what a receipt's view shows of each string (src/console/views/receipt.ts DISPLAY_CHARACTERS, restated) */
const SHOWN = 256 * 1024;

const at = (second: number): string => new Date(Date.parse('2026-12-01T00:00:00.000Z') + second * 1000).toISOString();
const failed = { ok: false, exit_code: 2, code: 'NONZERO_EXIT' as const };

/** Four calls of 3 MB of output each, oldest first: a success, a failure with a needle, one whose output starts `<é>`, a success. */
function calls(): Receipt[] {
  return [
    makeReceipt({ id: 'call-0', output: 'ok-0:'.padEnd(MB, 'x'), output_bytes: MB, started_at: at(0), finished_at: at(0) }),
    makeReceipt({ id: 'call-1', ...failed, output: `${'y'.repeat(MB - 20)} a Needle at the end`, error: '\n\nboom: the first line\nthe second line\n', stderr: '\n\nboom: the first line\nthe second line\n', output_bytes: MB, started_at: at(1), finished_at: at(1) }),
    makeReceipt({ id: 'call-2', ...failed, code: 'TIMEOUT', exit_code: null, timed_out: true, output: `<é>${'z'.repeat(MB)}`, error: 'timed out', output_bytes: MB + 4, started_at: at(2), finished_at: at(2) }),
    makeReceipt({ id: 'call-3', output: 'ok-3:'.padEnd(MB, 'w'), output_bytes: MB, started_at: at(3), finished_at: at(3) }),
  ];
}

async function seed(home: ServiceHome, url: string | undefined): Promise<Receipt[]> {
  const store = await openStore({ sqlitePath: join(home.path, 'data', 'receipts.db'), ...(url ? { url } : {}) });
  try {
    for (const receipt of calls()) await store.receipts.save(receipt);
  } finally {
    await store.close();
  }
  return calls();
}

const listed = (page: string): string[] => [...page.matchAll(/data-receipt="([^"]+)"/g)].map((match) => match[1]!);
const older = (page: string): string | undefined => /href="\/console\/failures\?([^"]*)">Older →/.exec(page)?.[1]?.replaceAll('&amp;', '&');

/** `healthzFirst`: whether each read must be made by the store's thread, a /healthz answered while it is held there (SQLite; on PostgreSQL some are the store connection's own). */
function suite(home: ServiceHome, database: () => Promise<{ url: string; drop: () => Promise<void> } | undefined>, healthzFirst: boolean): void {
  it(`lists, searches and shows calls of 3 MB whole and right${healthzFirst ? ", answering a /healthz while the store's thread holds each read" : ''}`, async () => {
    const made = await database();
    try {
      const saved = await seed(home, made?.url);
      const repo = join(home.path, 'repo');
      await writeFiles(repo, { 'tools/small/TOOL.hdlp': makeToolYaml('small', { executor: 'shell', shell: '{ argv: [echo, small] }' }) });
      const holds = join(home.path, 'holds');
      const server = await home.serve(['--repo', repo], { HLDP_TEST_HOLD_STORE_READS: holds, ...(made ? { HLDP_STORE_URL: made.url } : {}) });
      const cookie = await signInToConsole(server.url, '');
      // each read held in the store's thread until a /healthz asked meanwhile is answered: one the server did on its
      // event loop would come with none held (test/helpers/beside-healthz.ts)
      const read = async (path: string): Promise<string> => {
        const { head, body } = healthzFirst ? await readWhileHeld(server.url, holds, path, { cookie }) : await readBesideHealthz(server.url, path, { cookie });
        expect(head, path).toMatch(/^HTTP\/1\.1 200 /);
        return body;
      };

      // the list: 4 MiB of stored calls a page, so one call of 3 MB a page, newest first; Older → reaches each once
      const seen: string[] = [];
      let page = await read('/console/failures?status=all');
      expect(page).toContain('data-code="ENDED_EARLY"');
      for (;;) {
        seen.push(...listed(page));
        const next = older(page);
        if (next === undefined) break;
        page = await read(`/console/failures/rows?${next}`);
      }
      expect(seen).toEqual(['call-3', 'call-2', 'call-1', 'call-0']);
      const failures = await read('/console/failures');
      expect(listed(failures)).toEqual(['call-2']);
      const row = (text: string, id: string): string => new RegExp(`<tr [^>]*data-receipt="${id}">([\\s\\S]*?)</tr>`).exec(text)![1]!;
      expect(row(failures, 'call-2')).toContain('<td data-label="Outcome">TIMEOUT</td>');
      expect(row(failures, 'call-2')).toContain('<td data-label="Error" class="error-line">timed out</td>');

      // the search: the needle is in the output of one call, past its first 3 MB less 20 bytes
      const found = await read('/console/failures?status=all&q=needle');
      expect(listed(found)).toEqual(['call-1']);
      const one = row(found, 'call-1');
      expect(one).toContain('NONZERO_EXIT <span class="muted">exit 2</span>');
      expect(one).toContain('<td data-label="Took">3 ms</td>');
      expect(one).toContain('<td data-label="Error" class="error-line">boom: the first line</td>');
      expect(listed(await read('/console/failures?status=all&code=TIMEOUT'))).toEqual(['call-2']);

      // a call's view: the start of its output exactly, said to be the start, with a link to all of it
      const view = await read('/console/receipts/call-2');
      const output = saved[2]!.output;
      expect(view).toContain(`<pre id="output">\n&lt;é&gt;${'z'.repeat(SHOWN - 3)}</pre>`);
      expect(view).toContain(`Showing the first ${(SHOWN + 1).toLocaleString('en')} of its ${Buffer.byteLength(output).toLocaleString('en')} bytes. <a href="/console/receipts/call-2/raw/output">`);
      expect(view).toContain('<pre id="error">\ntimed out</pre>');
      const raw = await fetch(`${server.url}/console/receipts/call-2/raw/output`, { headers: { cookie } });
      expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(output))).toBe(true);
      const stderr = await fetch(`${server.url}/console/receipts/call-1/raw/stderr`, { headers: { cookie } });
      expect(await stderr.text()).toBe(saved[1]!.stderr);
      expect((await fetch(`${server.url}/console/receipts/call-1/raw/params`, { headers: { cookie } })).status).toBe(404);
      expect((await fetch(`${server.url}/console/receipts/call-9/raw/output`, { headers: { cookie } })).status).toBe(404);
      await server.stop();
    } finally {
      await made?.drop();
    }
  }, 240_000);
}

describe('the console of hldp serve on SQLite over large calls', () => {
  const home = useServiceHome('warn');
  suite(home, async () => undefined, true);
});

describeWithPostgres('the console of hldp serve on PostgreSQL over large calls', () => {
  const home = useServiceHome('warn');
  suite(home, createTestDatabase, false);
});
