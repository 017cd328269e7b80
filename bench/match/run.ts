// Intent matching benchmark: `npm run bench:match -- [--data FILE]`; prints JSON metrics on stdout.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ToolDefinition } from '../../src/core/index.js';
import { legalNames, readBenchData, type BenchData, type BenchQuery } from './bfcl-data.js';
import { writeBenchRepository } from './bench-repository.js';
import { curvePoint } from './decision-curve.js';
import { evaluate, fitSignalThreshold, measureLatency as measureBaselineLatency, type BenchWorld, type QueryOutcome } from './evaluate.js';
import { measureLatency, replicate } from './latency.js';
import { measureUpdate } from './update-latency.js';
import { loadIndex } from './load-index.js';
import { summarise, type Metrics } from './metrics.js';
import { baselineSystem, matcherSystem } from './systems.js';

/** The BFCL v4 tool-selection file in the shared folder. */
export const DEFAULT_DATA = fileURLToPath(new URL('../../../shared/bench/bfcl_v4_toolsel.json', import.meta.url));

/** Writes the benchmark's tools into a temporary repository, scans it, and returns what the systems search. */
export async function prepareWorld(data: BenchData): Promise<{ world: BenchWorld; scanner: string; scanMs: number }> {
  const names = legalNames(data.tools);
  const repo = await writeBenchRepository(data.tools, names);
  try {
    const started = performance.now();
    const { index, scanner } = await loadIndex(repo);
    const scanMs = performance.now() - started;
    if (index.tools.length !== data.tools.length) {
      throw new Error(`the scan kept ${index.tools.length} of ${data.tools.length} tools: ${JSON.stringify(index.errors.slice(0, 3))}`);
    }
    const byName = new Map(index.tools.map((tool) => [tool.name, tool]));
    const toolsById = new Map<string, ToolDefinition>();
    const benchName = new Map<string, string>();
    for (const tool of data.tools) {
      const name = names.get(tool.id)!;
      toolsById.set(tool.id, byName.get(name)!);
      benchName.set(name, tool.name);
    }
    return { world: { toolsById, benchName }, scanner, scanMs };
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

function bySplit(outcomes: QueryOutcome[], threshold?: number): Splits {
  return {
    tuning_even: summarise(outcomes.filter((o) => o.tuning), threshold),
    held_out_odd: summarise(outcomes.filter((o) => !o.tuning), threshold),
    all: summarise(outcomes, threshold),
  };
}

function byKey(outcomes: QueryOutcome[], key: (o: QueryOutcome) => string, threshold?: number): Record<string, Metrics> {
  const keys = [...new Set(outcomes.map(key))].sort();
  return Object.fromEntries(keys.map((value) => [value, summarise(outcomes.filter((o) => key(o) === value), threshold)]));
}

type Splits = Record<'tuning_even' | 'held_out_odd' | 'all', Metrics>;

// the matcher's numbers as multiples of the baseline's, per split
function gains(matcher: Splits, baseline: Splits): Record<string, Record<string, number>> {
  const ratio = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000;
  return Object.fromEntries(
    (Object.keys(matcher) as Array<keyof Splits>).map((split) => [
      split,
      {
        pooled_hit1: ratio(matcher[split].pooled.hit1, baseline[split].pooled.hit1),
        pooled_hit3: ratio(matcher[split].pooled.hit3, baseline[split].pooled.hit3),
        pooled_mrr: ratio(matcher[split].pooled.mrr, baseline[split].pooled.mrr),
        decision_accuracy: ratio(matcher[split].decision.accuracy, baseline[split].decision.accuracy),
      },
    ]),
  );
}


// the trade-off of the found:false decision on each split, at thresholds around the fitted one
function decisionCurve(outcomes: QueryOutcome[]): Record<string, ReturnType<typeof curvePoint>[]> {
  const thresholds = [0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8];
  const curve = (tuning: boolean) => {
    const scores = outcomes
      .filter((o) => o.tuning === tuning)
      .map((o) => ({ probability: o.signal, fits: o.query.gold.length > 0 }));
    return thresholds.map((threshold) => curvePoint(scores, threshold));
  };
  return { tuning_even: curve(true), held_out_odd: curve(false) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string', default: DEFAULT_DATA } } });
  const { existsSync } = await import('node:fs');
  if (!existsSync(values.data!)) {
    // the BFCL data is the team's, beside the clone, not in this repository
    process.stderr.write(`bench:match: no benchmark data at ${values.data}: it is the team's shared/bench/bfcl_v4_toolsel.json, expected beside this clone (../shared); pass another file of that format with -- --data FILE\n`);
    process.exitCode = 2;
    return;
  }
  const data = await readBenchData(values.data!);
  const { world, scanner, scanMs } = await prepareWorld(data);
  const queries: BenchQuery[] = data.queries;
  const tools = [...world.toolsById.values()];
  const matcher = evaluate(matcherSystem(), world, queries);
  const baseline = evaluate(baselineSystem, world, queries);
  const threshold = fitSignalThreshold(baseline);
  const passes = 7;
  const latency = [tools.length, 10_000].map((size) => measureLatency(replicate(tools, size), queries, passes));
  const update = measureUpdate(replicate(tools, 10_000), queries);
  const baselineSearch = baselineSystem(tools);
  const baselineLatency = measureBaselineLatency(baselineSearch, queries);
  const matcherSplits = bySplit(matcher);
  const baselineSplits = bySplit(baseline, threshold);
  const report = {
    data: values.data,
    tools: tools.length,
    queries: queries.length,
    scanner,
    scan_ms: Math.round(scanMs),
    split: 'tuning = first byte of sha256(query id) is even; held out = odd',
    latency_ms: latency,
    update_from_previous_matcher: update,
    gain_over_baseline: gains(matcherSplits, baselineSplits),
    matcher: {
      ...matcherSplits,
      decision_curve: decisionCurve(matcher),
      by_language: byKey(matcher, (o) => o.query.lang),
      by_category: byKey(matcher, (o) => o.query.category),
    },
    baseline: {
      system: 'minisearch defaults over name + description + param names and descriptions',
      found_threshold_on_top_score: threshold,
      latency_ms: baselineLatency,
      ...baselineSplits,
      by_language: byKey(baseline, (o) => o.query.lang, threshold),
    },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
