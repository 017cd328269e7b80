// Intent matching benchmark: `npm run bench:match -- [--data FILE]... [--quick] [--model-url URL --model NAME]`;
// prints JSON on stdout.
// Without --data it runs BFCL v4 (shared/bench) and every set in bench/match/data; --quick skips the
// latency measurements (which take most of the time); --model-url adds, per request set of
// bench/match/data, the answers with the model stage of an OpenAI-compatible endpoint beside the lexical ones.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { missingData, readBenchData, type BenchData } from './bench-data.js';
import type { ModelStageOptions } from '../../src/matcher/index.js';
import { measureContext } from './context-effect.js';
import { evaluate, fitSignalThreshold, measureLatency as measureBaselineLatency, type BenchWorld, type QueryOutcome } from './evaluate.js';
import { measureLatency, replicate } from './latency.js';
import { measureModelEffect } from './model-effect.js';
import { summarise, type Metrics } from './metrics.js';
import { baselineSystem, matcherSystem } from './systems.js';
import { measureUpdate } from './update-latency.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const DATA_FOLDER = fileURLToPath(new URL('./data/', import.meta.url));

/** The request sets kept in bench/match/data, in name order. */
export const DATA_SETS = readdirSync(DATA_FOLDER)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => `${DATA_FOLDER}${name}`);

type Splits = Record<'tuning_even' | 'held_out_odd' | 'all', Metrics>;

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

// the few numbers that say most, per language, for reading at a glance
function glance(metrics: Record<string, Metrics>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(metrics).map(([language, m]) => [
      language,
      `hit@1 ${m.pooled.hit1} hit@3 ${m.pooled.hit3} | found:false on answerable ${m.decision.found_false_on_answerable}` +
        ` refused no-tool ${m.decision.refused_no_tool} (${m.decision.no_tool}) | accuracy ${m.decision.accuracy}` +
        ` confident ${m.decision.accuracy_confident} | high ${m.decision.high_answers} precision ${m.decision.high_precision} | cost ${m.decision.cost} | AUROC ${m.decision.auroc}`,
    ]),
  );
}

async function runSet(data: BenchData): Promise<{ report: Record<string, unknown>; world: BenchWorld }> {
  const { world, scanner, scanMs } = await prepareWorld(data);
  const matcher = evaluate(matcherSystem(), world, data.queries);
  const baseline = evaluate(baselineSystem, world, data.queries);
  // a set without labelled no-tool requests in its tuning half has no threshold to fit: the BFCL one is not used here
  const threshold = fitSignalThreshold(baseline);
  const languages = byKey(matcher, (o) => o.query.lang);
  const report = {
    data: data.path,
    tools: world.toolsById.size,
    queries: data.queries.length,
    scanner,
    scan_ms: Math.round(scanMs),
    at_a_glance: glance(languages),
    matcher: {
      ...bySplit(matcher),
      by_language: languages,
      by_category: byKey(matcher, (o) => o.query.category),
    },
    baseline: {
      system: 'minisearch defaults over name + description + param names and descriptions',
      found_threshold_on_top_score: threshold,
      ...bySplit(baseline, threshold),
      by_language: byKey(baseline, (o) => o.query.lang, threshold),
    },
  };
  return { report, world };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
      'model-url': { type: 'string' },
      model: { type: 'string' },
      'model-token': { type: 'string' },
      'model-timeout-ms': { type: 'string' },
    },
  });
  const model = modelOptions(values);
  const files = values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS];
  const missing = files.filter((file) => !existsSync(file));
  // the BFCL data is the team's, beside the clone, not in this repository
  if (missing.length > 0) missingData(missing);
  const started = new Date().toISOString();
  const loadBefore = loadavg();
  const sets: Record<string, unknown> = {};
  let first: { data: BenchData; world: BenchWorld } | undefined;
  for (const file of files) {
    const data = await readBenchData(file);
    process.stderr.write(`bench:match ${data.name}: ${data.queries.length} requests\n`);
    const { report, world } = await runSet(data);
    // the model stage is measured on the request sets of bench/match/data (a model call per weak request)
    if (model !== undefined && file !== DEFAULT_DATA) report['model_stage'] = await measureModelEffect(world, data.queries, model);
    sets[data.name] = report;
    first ??= { data, world };
  }
  const report: Record<string, unknown> = {
    started,
    load_average: { before: loadBefore.map(round2), after: loadavg().map(round2) },
    split: 'tuning = first byte of sha256(query id, before any @) is even; held out = odd',
    cost: 'per request: a wrong found:false costs 3, a found answer whose offered candidates hold no fitting tool costs 1',
    sets,
  };
  if (first !== undefined) {
    report['context'] = measureContext(first.world, first.data.queries);
    if (!values.quick) {
      const tools = [...first.world.toolsById.values()];
      const queries = first.data.queries;
      report['latency_ms'] = [tools.length, 10_000].map((size) => measureLatency(replicate(tools, size), queries, 7));
      report['update_from_previous_matcher'] = measureUpdate(replicate(tools, 10_000), queries);
      report['baseline_latency_ms'] = measureBaselineLatency(baselineSystem(tools), queries);
    }
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  // then the first-pass latency at 3,148 and 100,000 tools, in fresh processes (skipped with --quick); run here, not
  // chained in package.json, where `npm run bench:match -- --quick` gave --quick to that script instead of this one
  if (!values.quick) {
    const firstPass = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(new URL('./first-pass.ts', import.meta.url)), '--sizes', '3148,100000'], { stdio: 'inherit' });
    if (firstPass.status !== 0) process.exitCode = firstPass.status ?? 1;
  }
}

function modelOptions(values: Record<string, string | boolean | string[] | undefined>): ModelStageOptions | undefined {
  const url = values['model-url'];
  if (typeof url !== 'string') return undefined;
  const model = values['model'];
  if (typeof model !== 'string') throw new Error('--model-url needs --model NAME');
  const token = values['model-token'];
  const timeout = values['model-timeout-ms'];
  return { url, model, ...(typeof token === 'string' ? { token } : {}), timeoutMs: typeof timeout === 'string' ? Number(timeout) : 10_000 };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
