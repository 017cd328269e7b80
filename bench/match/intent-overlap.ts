// What INTENT_OVERLAP (review Z6, Z6-2) costs and how often honest tools raise it: BFCL's tools, each given as examples
// the labelled English requests that name it alone (at most `--per-tool`, 2 by default: an author's own examples), every
// example asked of the registry as `hldp validate` asks them; then at 10,000 tools (BFCL's replicated, each copy
// renamed and without examples but the first's, so that no copy takes its original's). Also the cost the match answer's
// `contested` check adds: the CPU of `contestedBy` over one first pass of the requests, against the pass's own.
// `nice -n 10 npx tsx bench/match/intent-overlap.ts [--data FILE] [--per-tool 2]`
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ToolDefinition } from '../../src/core/index.js';
import { createMatcher, intentOverlaps, overlapTextCount } from '../../src/matcher/index.js';
import { readBenchData } from './bench-data.js';
import { replicate } from './latency.js';
import { asIndex } from './systems.js';
import { threadCpuClock } from './thread-cpu.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const { values } = parseArgs({ options: { data: { type: 'string', default: DEFAULT_DATA }, 'per-tool': { type: 'string', default: '2' } } });
const perTool = Number(values['per-tool']);
const clock = (await threadCpuClock()) ?? (() => process.cpuUsage().user / 1000);
const data = await readBenchData(values.data!);
const { world } = await prepareWorld(data);
const examples = new Map<string, string[]>();
for (const query of data.queries) {
  if (query.lang !== 'en' || query.gold.length !== 1) continue;
  const name = world.toolsById.get(query.gold[0]!)?.name;
  if (name === undefined) continue;
  const own = examples.get(name) ?? [];
  if (own.length < perTool) examples.set(name, [...own, query.text]);
}
const tools: ToolDefinition[] = [...world.toolsById.values()].map((tool) => ({ ...tool, examples: examples.get(tool.name) ?? [] }));

function measure(label: string, many: ToolDefinition[]): void {
  const index = asIndex(many);
  const load = loadavg()[0]!.toFixed(1);
  let started = clock();
  const matcher = createMatcher(index).prepare();
  const prepareMs = clock() - started;
  started = clock();
  const overlaps = intentOverlaps(index, (intent) => matcher.explainIntent(intent));
  const overlapMs = clock() - started;
  const pairs = new Set(overlaps.map((overlap) => `${overlap.taker.name}\n${overlap.of.name}`));
  const takers = new Set(overlaps.map((overlap) => overlap.taker.name));
  // BFCL repeats one function under several ids (Events_3_FindEvents--1, --23): a copy taking its twin's requests is a true overlap
  const base = (name: string): string => name.replace(/--\d+$/, '').replace(/^.*\./, '').toLowerCase();
  const twins = [...pairs].filter((pair) => { const [a, b] = pair.split('\n'); return base(a!) === base(b!); }).length;
  const report = {
    label, tools: many.length, texts: overlapTextCount(index), overlapping_texts: overlaps.length, warnings: takers.size, pairs: pairs.size, same_function_pairs: twins,
    prepare_cpu_ms: Math.round(prepareMs), overlap_cpu_ms: Math.round(overlapMs), per_text_cpu_ms: Math.round((overlapMs / Math.max(1, overlapTextCount(index))) * 100) / 100, load_average: load,
    samples: overlaps.slice(0, 5).map((overlap) => `'${overlap.text}' of ${overlap.of.name} → ${overlap.taker.name}`),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // the answer's check: one first pass of the requests, with the check (a fresh matcher, so no pair is remembered)
  const fresh = createMatcher(index).prepare();
  const queries = data.queries.filter((query) => query.lang === 'en').slice(0, 300);
  started = clock();
  let contested = 0;
  for (const query of queries) {
    const answer = fresh.matchIntent(query.text);
    if (answer.found && answer.contested !== undefined) contested += 1;
  }
  const passMs = clock() - started;
  // the same pass again: every pair is remembered now, so it is the pass without the check's rankings
  started = clock();
  for (const query of queries) fresh.matchIntent(query.text);
  const warmMs = clock() - started;
  process.stdout.write(`${JSON.stringify({ label, requests: queries.length, contested_answers: contested, first_pass_cpu_ms: Math.round(passMs), remembered_pass_cpu_ms: Math.round(warmMs), load_average: loadavg()[0]!.toFixed(1) })}\n`);
}

measure('bfcl with its labelled requests as examples', tools);
measure('10,000 (bfcl replicated, copies without examples)', replicate(tools, 10_000).map((tool, at) => (at < tools.length ? tool : { ...tool, examples: [], aliases: [] })));
