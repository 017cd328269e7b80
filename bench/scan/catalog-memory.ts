// What the MCP catalog of a large registry holds (issue #18): the index read from a warm scan cache (WORK/cache, as
// `hldp serve` keeps it), every definition made, then the catalog built; V8's heap after a forced collection at each
// step, and the time the catalog took. Usage: node --expose-gc --import tsx bench/scan/catalog-memory.ts REPO WORK
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { ToolIndex } from '../../src/core/index.js';
import { catalogFor } from '../../src/sessions/tool-catalog.js';
import { Scanner } from '../../src/scanner/index.js';
import { usage } from '../usage.js';

const [repo, work] = process.argv.slice(2) as [string, string];
if (!repo || !work) usage('node --expose-gc --import tsx bench/scan/catalog-memory.ts REPO WORK');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapMb = (): number => {
  gc();
  gc();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
};
const load = loadavg()[0]!.toFixed(1);
const scanner = new Scanner({ repo, cacheDir: join(work, 'cache') });
const index: ToolIndex = await scanner.scan();
const read = heapMb();
const tools = index.tools.length;
const made = heapMb();
const cpu = process.cpuUsage();
const catalog = catalogFor(index);
const used = process.cpuUsage(cpu);
const built = heapMb();
console.log(JSON.stringify({ tools, load, heap_mb: { index_read: read, definitions_made: made, catalog_built: built }, catalog_mb: built - made, catalog_cpu_ms: Math.round((used.user + used.system) / 1000), listed: catalog.tools.length }));
