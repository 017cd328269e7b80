// Where a server's start goes, phase by phase (issue #18): Gateway.open (the scan, from the cache when warm), warmUp
// (the search index, built or loaded, and its calibration; the sandbox probe and the embedded gatekeeper), the MCP
// catalog, then the first match; after each, wall and CPU seconds since the start, RSS and heap. Over a generated
// repository of N tools (`bench/scan/generate-repository.ts`) or one given; the first run over a fresh work folder is
// cold, later ones warm. `--root DIR` runs another checkout's sources (e.g. `git archive <commit> src schemas
// package.json | tar -x -C DIR`, node_modules linked) to put a version before a change beside it.
// Usage: npx tsx bench/scan/start-phases.ts --repo REPO --work DIR [--runs 3] [--root DIR]
//        npx tsx bench/scan/start-phases.ts --tools 100000 --work DIR   (generates the repository in DIR/repo first)
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { generateRepository } from './generate-repository.js';
import { usage } from '../usage.js';

const { values } = parseArgs({ options: { repo: { type: 'string' }, tools: { type: 'string' }, work: { type: 'string' }, runs: { type: 'string', default: '1' }, root: { type: 'string' } } });
if (!values.work || (!values.repo && !values.tools)) usage('npx tsx bench/scan/start-phases.ts (--repo REPO | --tools N) --work DIR [--runs N] [--root DIR]');
const work = resolve(values.work);
const root = values.root ? resolve(values.root) : fileURLToPath(new URL('../..', import.meta.url));
const repo = values.repo ? resolve(values.repo) : join(work, 'repo');
if (!values.repo && !existsSync(repo)) await generateRepository(repo, Number(values.tools));
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, path)).href)) as T;
// --root may be a tree from before the config moved from gateway/config to config
const { loadConfig } = await load<typeof import('../../src/config/index.js')>(existsSync(join(root, 'src/config/index.ts')) ? 'src/config/index.ts' : 'src/gateway/config/index.ts');
// --root may be a tree from before the catalog moved from gateway/mcp to sessions
const { catalogFor } = await load<typeof import('../../src/sessions/index.js')>(existsSync(join(root, 'src/sessions/tool-catalog.ts')) ? 'src/sessions/index.ts' : 'src/gateway/mcp/index.ts');
const { Gateway } = await load<typeof import('../../src/gateway/service/index.js')>('src/gateway/service/index.ts');
mkdirSync(join(work, 'data'), { recursive: true });
const config = loadConfig({ env: { HLDP_REPO: repo, HLDP_CACHE_DIR: join(work, 'cache'), HLDP_DATA_DIR: join(work, 'data'), HLDP_WORKSPACE: work } });
const cpu = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};
const round = (value: number): number => Math.round(value * 100) / 100;
for (let run = 0; run < Number(values.runs); run++) {
  const started = performance.now();
  const startedCpu = cpu();
  const phases: Array<Record<string, unknown>> = [];
  const mark = (phase: string): void => {
    const memory = process.memoryUsage();
    phases.push({ phase, s: round((performance.now() - started) / 1000), cpu_s: round(cpu() - startedCpu), rss_mb: Math.round(memory.rss / 2 ** 20), heap_mb: Math.round(memory.heapUsed / 2 ** 20) });
  };
  const gateway = await Gateway.open({ config });
  mark('open (scan)');
  await gateway.warmUp();
  // since issue #18's ready-early change, warmUp only starts intent matching: a server listens here, and the search index follows
  const background = 'prepareMatching' in gateway;
  mark(background ? 'warm-up (gatekeeper): serve listens' : 'warm-up (search index, gatekeeper)');
  if (background) {
    await (gateway as unknown as { prepareMatching(): Promise<unknown> }).prepareMatching();
    mark('intent matching ready (search index, calibration)');
  }
  catalogFor(gateway.registry.index);
  mark('MCP catalog');
  const matched = performance.now();
  gateway.registry.matcher.matchIntent('run the first tool on the target');
  const firstMatchMs = performance.now() - matched;
  await gateway.close();
  process.stdout.write(`${JSON.stringify({ run: run + 1, tools: gateway.registry.index.tools.length, root, load_average: loadavg().map(round), phases, first_match_ms: round(firstMatchMs), goal: 'ready ≤ 1 s and ≤ 300 MB at 100,000 tools (issue #18)' })}\n`);
}
