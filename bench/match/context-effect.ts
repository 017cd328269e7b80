import { createHash } from 'node:crypto';
import { createMatcher, type MatchContext } from '../../src/matcher/index.js';
import type { BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { asIndex } from './systems.js';

/** Pooled hit@1 over the requests with a gold tool, without context and with two kinds of it. */
export interface ContextEffect {
  queries: number;
  without_context: number;
  /** the session lately called the gold tool and two others */
  recent_includes_gold: number;
  /** the caller names the gold tool and two others in `context.tools` */
  named_includes_gold: number;
  /** the session lately called three tools, none of them gold: what context costs when it points elsewhere */
  recent_misleading: number;
  method: string;
}

/**
 * What `context` does to the ranking, simulated (the benchmark has no sessions): each request is
 * asked over the whole pool without context, with a session history or named tools that include
 * its gold tool among two others drawn at random, and with a history of three tools that are not gold.
 */
export function measureContext(world: BenchWorld, queries: readonly BenchQuery[]): ContextEffect {
  const tools = [...world.toolsById.values()];
  const matcher = createMatcher(asIndex(tools)).prepare();
  const names = tools.map((tool) => tool.name).sort();
  const answerable = queries.filter((query) => query.gold.length > 0);
  const counts = { without: 0, recent: 0, named: 0, misleading: 0 };
  for (const query of answerable) {
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const goldName = world.toolsById.get(query.gold[0]!)!.name;
    const others = drawOthers(names, query.id, gold, world, 3);
    const hit = (context?: MatchContext): boolean => {
      const best = matcher.explainIntent(query.text, context).ranked[0];
      return best !== undefined && gold.has(world.benchName.get(best.tool.name)!);
    };
    if (hit()) counts.without += 1;
    if (hit({ recent: [others[0]!, goldName, others[1]!] })) counts.recent += 1;
    if (hit({ tools: [others[0]!, goldName, others[1]!] })) counts.named += 1;
    if (hit({ recent: others })) counts.misleading += 1;
  }
  const share = (count: number): number => Math.round((count / Math.max(1, answerable.length)) * 1000) / 1000;
  return {
    queries: answerable.length,
    without_context: share(counts.without),
    recent_includes_gold: share(counts.recent),
    named_includes_gold: share(counts.named),
    recent_misleading: share(counts.misleading),
    method: 'pooled over all tools; other tools drawn by sha256(request id) from the pool, never a gold one; the gold tool second of three in recent',
  };
}

function drawOthers(names: string[], seed: string, gold: Set<string>, world: BenchWorld, count: number): string[] {
  const drawn: string[] = [];
  for (let attempt = 0; drawn.length < count && attempt < 100; attempt += 1) {
    const digest = createHash('sha256').update(`${seed}:${attempt}`).digest();
    const name = names[digest.readUInt32BE(0) % names.length]!;
    if (!gold.has(world.benchName.get(name)!) && !drawn.includes(name)) drawn.push(name);
  }
  return drawn;
}
