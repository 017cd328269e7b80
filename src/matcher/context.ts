import type { ToolSequence } from '../core/index.js';
import { NOTHING_MATCHES } from './decision.js';
import type { RankedTool } from './rank.js';

/** What the caller knows about the situation (the spec's `context`), as far as ranking uses it. */
export interface MatchContext {
  /** tools the caller expects to need, by name or alias */
  tools?: readonly string[];
  /** the group the caller is working in (a tool's `group`) */
  group?: string;
  /** tools the caller's session called lately, most recent first (the gateway fills this in) */
  recent?: readonly string[];
}

// How much context lifts a tool's score. It reorders tools that match the request about equally
// well; it never makes a tool match: a tool the request shares nothing with gains nothing, and
// context never turns "nothing matches" into candidates.
const NAMED_BOOST = 0.2;
const GROUP_BOOST = 0.1;
const RECENT_BOOST = 0.15;
// a tool called long ago says less than the one called just now
const RECENT_DECAY = 0.7;

/** The ranking with context applied: tools the context points at move up among those that match. */
export function applyContext(tools: ToolSequence, ranked: RankedTool[], context: MatchContext | undefined): RankedTool[] {
  if (context === undefined || ranked.length < 2) return ranked;
  const named = new Set((context.tools ?? []).map(normalise));
  const recent = (context.recent ?? []).map(normalise);
  const group = context.group === undefined ? undefined : normalise(context.group);
  if (named.size === 0 && recent.length === 0 && group === undefined) return ranked;
  const adjusted = ranked.map((entry) => {
    if (entry.features.evidence < NOTHING_MATCHES) return entry;
    const tool = tools.at(entry.position)!;
    const names = [tool.name, ...tool.aliases].map(normalise);
    let boost = 0;
    if (names.some((name) => named.has(name))) boost += NAMED_BOOST;
    if (group !== undefined && tool.group !== undefined && normalise(tool.group) === group) boost += GROUP_BOOST;
    const age = recent.findIndex((name) => names.includes(name));
    if (age >= 0) boost += RECENT_BOOST * RECENT_DECAY ** age;
    return boost === 0 ? entry : { ...entry, score: entry.score * (1 + boost), wordsScore: entry.wordsScore * (1 + boost) };
  });
  return adjusted.sort((a, b) => b.score - a.score || a.position - b.position);
}

function normalise(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}
