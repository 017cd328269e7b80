import { loadavg } from 'node:os';
import type { ToolDefinition } from '../../src/core/index.js';
import { createMatcher, type Matcher } from '../../src/matcher/index.js';
import type { BenchQuery } from './bench-data.js';
import { asIndex } from './systems.js';

/** What a rescan costs the matcher at one index size: a full build, and updates from the previous matcher. */
export interface UpdateReport {
  tools: number;
  full_build_ms: number;
  /** `createMatcher(next, { previous })` after one change each, in ms */
  update_ms: { one_changed: number; one_added: number; one_removed: number; none_changed: number };
  /** whether the updated matcher ranks the sample requests exactly as one built afresh over the same index */
  same_answers_as_fresh: { requests: number; same: boolean };
  load_average: number[];
}

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: Math.round((performance.now() - started) * 100) / 100 };
}

// what an answer shows: names, scores and probabilities of the ranked tools
function answers(matcher: Matcher, queries: readonly BenchQuery[]): string {
  return JSON.stringify(queries.map((query) => matcher.explainIntent(query.text).ranked.map((e) => [e.tool.name, e.score, e.probability])));
}

/**
 * Builds a matcher over `tools`, then updates it as a rescan would after one tool changed, one was
 * added, one removed, and a commit that changed no tool; the scanner keeps the definition objects of
 * unchanged tools, as here.
 */
export function measureUpdate(tools: readonly ToolDefinition[], queries: readonly BenchQuery[]): UpdateReport {
  let index = asIndex(tools, 'c0');
  const built = timed(() => createMatcher(index).prepare());
  let matcher = built.value;
  const changes: Record<keyof UpdateReport['update_ms'], (list: readonly ToolDefinition[]) => ToolDefinition[]> = {
    one_changed: (list) => list.map((tool, position) => (position === 7 ? { ...tool, intent: `${tool.intent} (revised)` } : tool)),
    one_added: (list) => [...list, { ...list[11]!, name: `${list[11]!.name}-added`, intent: 'a tool that was not there before' }],
    one_removed: (list) => list.filter((_, position) => position !== 13),
    none_changed: (list) => [...list],
  };
  const update_ms = {} as UpdateReport['update_ms'];
  for (const [name, change] of Object.entries(changes) as Array<[keyof UpdateReport['update_ms'], typeof changes.one_added]>) {
    index = asIndex(change(index.tools), `${index.commit}+`);
    const previous = matcher;
    const updated = timed(() => createMatcher(index, { previous }));
    update_ms[name] = updated.ms;
    matcher = updated.value;
  }
  const sample = queries.filter((_, position) => position % 10 === 0);
  const same = answers(matcher, sample) === answers(createMatcher(index), sample);
  return {
    tools: tools.length,
    full_build_ms: Math.round(built.ms),
    update_ms,
    same_answers_as_fresh: { requests: sample.length, same },
    load_average: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
