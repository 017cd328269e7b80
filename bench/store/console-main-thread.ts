// The main thread's busy time (event loop utilisation, active ms) of PostgreSQL's console reads, in-process: the calls
// list's pages (`pageSummaries`, 4 MiB a page: one receipt of `--bytes` each) over `--count` receipts, and one search
// that reads 16 MiB of them. Each DIR is a built checkout (its dist/); with two, they alternate, `--runs` each.
// Usage: npx tsx bench/store/console-main-thread.ts [--count 24] [--bytes 3000000] [--runs 3] DIR [DIR]
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startPostgres } from '../../test/helpers/postgres.js';
import { makeReceipt } from '../../test/store/support.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { count: { type: 'string', default: '24' }, bytes: { type: 'string', default: '3000000' }, runs: { type: 'string', default: '3' } } });
const count = Number(values.count);
const roots = (positionals.length > 0 ? positionals : ['.']).map((root) => resolve(root));
const cluster = await startPostgres({ durable: true });
const url = await cluster.createDatabase('hldp_main_thread');
const busy = (since: ReturnType<typeof performance.eventLoopUtilization>): number => performance.eventLoopUtilization(since).active;

console.log(`# PostgreSQL console reads on the main thread: ${count} receipts of ${values.bytes} bytes; load ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
for (let run = 0; run < Number(values.runs); run += 1) {
  for (const root of run % 2 === 0 ? roots : [...roots].reverse()) {
    const { openPostgresStore } = (await import(`${root}/dist/store/index.js`)) as typeof import('../../src/store/index.js');
    const store = await openPostgresStore({ url });
    if (run === 0 && root === roots[0]) {
      for (let at = 0; at < count; at += 1) {
        const when = new Date(Date.UTC(2026, 11, 1) + at * 1000).toISOString();
        await store.receipts.save(makeReceipt({ id: `call-${at}`, output: 'x'.repeat(Number(values.bytes)), started_at: when, finished_at: when }));
      }
    }
    // the writer thread started before the measure, as a serving gateway's is
    await store.receipts.pageSummaries({ limit: 50 }, 4 * 1024 * 1024);
    const list = performance.eventLoopUtilization();
    let longest = 0;
    for (let offset = 0; offset < count; offset += 1) {
      const page = performance.eventLoopUtilization();
      if ((await store.receipts.pageSummaries({ limit: 50, offset }, 4 * 1024 * 1024)).summaries.length !== 1) throw new Error('a page of one receipt was expected');
      longest = Math.max(longest, busy(page));
    }
    const listed = busy(list);
    const search = performance.eventLoopUtilization();
    const found = await store.receipts.searchSummaries({ text: 'x', searchRows: 10_000, searchBytes: 16 * 1024 * 1024, limit: 51 });
    console.log(JSON.stringify({ root, run, list_active_ms: Math.round(listed), longest_page_active_ms: Math.round(longest), search_active_ms: Math.round(busy(search)), found: found.length }));
    await store.close();
  }
}
console.log(`# load after: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
await cluster.stop();
