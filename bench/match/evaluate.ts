import type { ToolDefinition } from '../../src/core/index.js';
import { isTuningQuery, type BenchQuery } from './bench-data.js';
import { percentile } from './metrics.js';
import type { SearchAnswer, SearchSystem } from './systems.js';

/** How one system did on one request. */
export interface QueryOutcome {
  query: BenchQuery;
  tuning: boolean;
  /** 1-based rank of the first gold name in the pooled ranking of distinct names; Infinity when absent */
  pooledRank: number;
  /** 1-based rank by which every gold name has appeared in the pooled ranking; Infinity when one is absent */
  pooledAllRank: number;
  /** whether the best of the offered candidates has a gold name (requests with a gold tool only) */
  candidatesHit: boolean;
  /** whether the candidates the answer offers within the request's candidates include a gold name */
  offeredHit: boolean;
  /** the system's found decision over the whole pool (undefined for systems that do not decide) */
  pooledFound: boolean | undefined;
  /** the system's found decision within the offered candidates (undefined until thresholded) */
  found: boolean | undefined;
  /** how sure the found decision within the offered candidates is, for systems that say */
  confidence: 'high' | 'low' | undefined;
  /** the score a threshold turns into a decision */
  signal: number;
}

/** The benchmark as the systems see it: tools by benchmark id, and the benchmark name each tool has. */
export interface BenchWorld {
  toolsById: Map<string, ToolDefinition>;
  /** tool name in the index → the benchmark's name (same-name variants count as one tool) */
  benchName: Map<string, string>;
}

/** Runs a system over every request: pooled over all tools, and within each request's offered candidates. */
export function evaluate(system: SearchSystem, world: BenchWorld, queries: readonly BenchQuery[]): QueryOutcome[] {
  const allTools = [...world.toolsById.values()];
  const pooled = system(allTools);
  const perCandidates = new Map<string, (text: string) => SearchAnswer>();
  return queries.map((query) => {
    const answer = pooled(query.text);
    const goldNames = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    // same-name variants are one tool: a ranking that lists one twice lists it once
    const ranking = [...new Set(answer.names.map((name) => world.benchName.get(name)!))];
    const rank = ranking.findIndex((name) => goldNames.has(name));
    const allRank = Math.max(...[...goldNames].map((name) => ranking.indexOf(name)).map((at) => (at < 0 ? Infinity : at + 1)));
    const key = [...query.candidates].sort().join('\n');
    let within = query.candidates.length === allTools.length ? pooled : perCandidates.get(key);
    if (within === undefined) {
      within = system(query.candidates.map((id) => world.toolsById.get(id)!));
      perCandidates.set(key, within);
    }
    const offered = within === pooled ? answer : within(query.text);
    const best = offered.names[0];
    const shown = offered.names.slice(0, offered.offered ?? 3);
    return {
      query,
      tuning: isTuningQuery(query),
      pooledRank: rank < 0 ? Infinity : rank + 1,
      pooledAllRank: goldNames.size === 0 ? Infinity : allRank,
      pooledFound: answer.found,
      candidatesHit: best !== undefined && goldNames.has(world.benchName.get(best)!),
      offeredHit: shown.some((name) => goldNames.has(world.benchName.get(name)!)),
      found: offered.found,
      confidence: offered.confidence,
      signal: offered.signal,
    };
  });
}

/** The threshold on `signal` that decides best on the tuning requests (for systems without their own decision). */
export function fitSignalThreshold(outcomes: readonly QueryOutcome[]): number {
  const tuning = outcomes.filter((outcome) => outcome.tuning);
  const signals = [...new Set(tuning.map((outcome) => outcome.signal))].sort((a, b) => a - b);
  let best = { threshold: 0, correct: -1 };
  for (const threshold of signals) {
    const correct = tuning.filter((o) => (o.signal >= threshold) === o.query.gold.length > 0).length;
    if (correct > best.correct) best = { threshold, correct };
  }
  return best.threshold;
}

/** Per-request latency in ms over `passes` passes after a warm-up: the first pass, and each request's fastest. */
export function measureLatency(
  run: (text: string) => unknown,
  queries: readonly BenchQuery[],
  passes = 3,
): { single: { p50: number; p99: number }; best_of_passes: { p50: number; p99: number } } {
  for (const query of queries.slice(0, 200)) run(query.text);
  const times = queries.map(() => [] as number[]);
  for (let pass = 0; pass < passes; pass += 1) {
    queries.forEach((query, index) => {
      const started = performance.now();
      run(query.text);
      times[index]!.push(performance.now() - started);
    });
  }
  const first = times.map((list) => list[0]!);
  const best = times.map((list) => Math.min(...list));
  return {
    single: { p50: percentile(first, 50), p99: percentile(first, 99) },
    best_of_passes: { p50: percentile(best, 50), p99: percentile(best, 99) },
  };
}
