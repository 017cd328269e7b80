// Latency, build time and memory of the matcher at the benchmark's size and at 10,000 tools, and
// the time an update from the previous matcher takes at 10,000 tools:
// `npx tsx bench/match/latency.ts [--data FILE] [--passes 7] [--no-update]`.
// On a shared, noisy machine one pass's p99 measures the neighbours as much as the matcher, so each
// request's time is its fastest of several passes; the load average is printed alongside.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ToolDefinition } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { readBenchData, type BenchQuery } from './bench-data.js';
import { percentile } from './metrics.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';
import { measureUpdate } from './update-latency.js';
import { asIndex } from './systems.js';
import { threadCpuClock } from './thread-cpu.js';

/** Latency of one index size: build time, heap the index holds, and per-request times in ms. */
export interface LatencyReport {
  tools: number;
  build_ms: number;
  /** heap the built matcher holds, after garbage collection */
  heap_mb: number;
  first_pass: { p50: number; p99: number };
  best_of_passes: { passes: number; p50: number; p99: number; max: number };
  /**
   * The same best-of-passes figures for the requests the words answer and those they find nothing for (which alone
   * reach the vector stage), apart; `cpu_ms`: the calling thread's CPU time (best of passes), where it can be read.
   */
  by_words: Record<'words_answered' | 'words_found_nothing', { requests: number; p50: number; p99: number; cpu_ms?: { p50: number; p99: number } }>;
  load_average: { before: number[]; after: number[] };
}

/** `tools` copied under new names until there are at least `size` of them. */
export function replicate(tools: readonly ToolDefinition[], size: number): ToolDefinition[] {
  const many: ToolDefinition[] = [];
  for (let copy = 0; many.length < size; copy += 1) {
    for (const tool of tools) {
      if (many.length === size) break;
      many.push(copy === 0 ? tool : { ...tool, name: `${tool.name}-copy${copy}` });
    }
  }
  return many;
}

/** Builds a matcher over `tools` and times `matchIntent` for every request, `passes` times. */
export function measureLatency(tools: ToolDefinition[], queries: readonly BenchQuery[], passes: number, threadCpu?: () => number): LatencyReport {
  const index = asIndex(tools);
  const gc = collector();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const matcher = createMatcher(index).prepare();
  const buildMs = performance.now() - started;
  gc();
  const heapMb = round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20, 1);
  const before = loadavg().map((value) => round(value, 2));
  for (const query of queries.slice(0, 300)) matcher.matchIntent(query.text);
  const best = new Array<number>(queries.length).fill(Infinity);
  const bestCpu = new Array<number>(queries.length).fill(Infinity);
  const first: number[] = [];
  for (let pass = 0; pass < passes; pass += 1) {
    queries.forEach((query, position) => {
      const cpuStart = threadCpu?.() ?? 0;
      const start = performance.now();
      matcher.matchIntent(query.text);
      const elapsed = performance.now() - start;
      const cpu = (threadCpu?.() ?? 0) - cpuStart;
      if (pass === 0) first.push(elapsed);
      best[position] = Math.min(best[position]!, elapsed);
      bestCpu[position] = Math.min(bestCpu[position]!, cpu);
    });
  }
  // whether the words answer each request (the same with or without the vector stage: the words' own judgement)
  const answered = queries.map((query) => matcher.explainIntent(query.text).found);
  const group = (words: boolean): LatencyReport['by_words']['words_answered'] => {
    const times = best.filter((_, at) => answered[at] === words);
    const cpu = bestCpu.filter((_, at) => answered[at] === words);
    return { requests: times.length, p50: percentile(times, 50), p99: percentile(times, 99), ...(threadCpu === undefined ? {} : { cpu_ms: { p50: percentile(cpu, 50), p99: percentile(cpu, 99) } }) };
  };
  return {
    tools: tools.length,
    build_ms: Math.round(buildMs),
    heap_mb: heapMb,
    first_pass: { p50: percentile(first, 50), p99: percentile(first, 99) },
    best_of_passes: { passes, p50: percentile(best, 50), p99: percentile(best, 99), max: round(Math.max(...best), 3) },
    by_words: { words_answered: group(true), words_found_nothing: group(false) },
    load_average: { before, after: loadavg().map((value) => round(value, 2)) },
  };
}

// the heap a matcher holds is only measurable after a full collection, which needs the gc hook
function collector(): () => void {
  setFlagsFromString('--expose_gc');
  return runInNewContext('gc') as () => void;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { data: { type: 'string', default: DEFAULT_DATA }, passes: { type: 'string', default: '7' }, 'no-update': { type: 'boolean', default: false }, sizes: { type: 'string' } },
  });
  const threadCpu = await threadCpuClock();
  const data = await readBenchData(values.data!);
  const { world } = await prepareWorld(data);
  const tools = [...world.toolsById.values()];
  const passes = Number(values.passes);
  // --sizes 250,1000,3148: other registry sizes (the first tools of the data, copied under new names past its own)
  const sizes = values.sizes === undefined ? [tools.length, 10_000] : values.sizes.split(',').map(Number);
  const latency = sizes.map((size) => measureLatency(replicate(tools, size), data.queries, passes, threadCpu));
  const report = { latency, ...(values['no-update'] ? {} : { update: measureUpdate(replicate(tools, 10_000), data.queries) }) };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
