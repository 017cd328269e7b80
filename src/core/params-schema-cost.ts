import { MAX_JSON_DEPTH } from './json-depth.js';
import { schemaGraph, type SchemaGraphNode } from './schema-graph.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * How many times ajv may apply one subschema to one value of the params. A schema whose recursion passes through two
 * branches that both lead back to it (`anyOf: [{$ref: n}, {$ref: n}]`, one level each) doubles that count per level of
 * the params: 130 bytes nested 18 deep took 5 s of the event loop (review V, V4). Under this bound the work of one
 * validation is at most this many times the schema's size per value of the params: linear in the params.
 */
export const MAX_CHECKS_PER_VALUE = 16;

/** A params schema ajv could not check in time linear in the params: where, and why. */
export interface SchemaCostProblem {
  /** the subschema checked too often (or the reference that loops), from the schema's root */
  path: Array<string | number>;
  /** `loop`: a reference leads back to itself without going into a value (ajv recurses until its stack overflows); `multiplied`: a subschema is applied to one value more than MAX_CHECKS_PER_VALUE times */
  kind: 'loop' | 'multiplied';
  /** how deep in the params the first value it is checked too often on (or loops on) sits: 0 the params object */
  depth: number;
  message: string;
}

/** The most times any one subschema is applied to one value (at most MAX_CHECKS_PER_VALUE + 1: counting stops there), and the problem if over the bound. */
export interface SchemaCost {
  checksPerValue: number;
  problem?: SchemaCostProblem;
}

/** How to read a schema's patterns and name its places. */
export interface SchemaCostOptions {
  /** whether a `patternProperties` pattern matches a property name as the validator's engine (RE2) would; may throw for a pattern it cannot compile */
  matches: (pattern: string, name: string) => boolean;
  /** a subschema's place as its author reads it (default: the keys joined with dots) */
  describe?: (path: Array<string | number>) => string;
}

type Counts = Map<number, number>;
const CAP = MAX_CHECKS_PER_VALUE + 1;

/**
 * Bounds the work ajv does per value of the params for this schema, over every value up to MAX_JSON_DEPTH deep,
 * without running it: counts, level by level, how many times each subschema can be applied to one value (each branch
 * of a combinator as taken, as ajv takes every one of them when a value fails them). Where a value may take several
 * paths (different property names, an object or an array) the larger count of each subschema is kept: an upper bound,
 * which overestimates only when two paths that cannot both be taken lead back to the same subschema. A property name
 * no `properties` names is counted as matching every `patternProperties` of its schema.
 */
export function paramsSchemaCost(schema: JsonSchema, options: SchemaCostOptions): SchemaCost {
  // most schemas: a tree without references applies each subschema to a value at most once (its one path from the
  // root names the value), and the graph is not worth making (a scan checks every definition)
  if (isPlainTree(schema)) return { checksPerValue: 1 };
  const nodes = schemaGraph(schema);
  const counter = new CostCounter(nodes, options.describe ?? describePath);
  const mayMatch: NameMatcher = (pattern, name) => {
    // a pattern RE2 cannot compile is refused by the scanner; counted as matching, it errs on the side of the bound
    try {
      return options.matches(pattern, name);
    } catch {
      return true;
    }
  };
  let level: Counts = new Map([[0, 1]]);
  const first = counter.close(level, 0);
  if ('problem' in first) return { checksPerValue: CAP, problem: first.problem };
  level = first.counts;
  let most = largest(level);
  for (let depth = 1; depth <= MAX_JSON_DEPTH && level.size > 0; depth++) {
    const next: Counts = new Map();
    for (const step of childSteps(nodes, level, mayMatch)) {
      const closed = counter.close(step, depth);
      if ('problem' in closed) return { checksPerValue: CAP, problem: closed.problem };
      // a property name's own value is a string: nothing goes deeper from its checks
      if (!step.keyName) for (const [node, count] of closed.counts) next.set(node, Math.max(next.get(node) ?? 0, count));
      most = Math.max(most, largest(closed.counts));
    }
    // the same counts give the same next level: every level deeper is this one again
    if (sameCounts(next, level)) break;
    level = next;
  }
  return { checksPerValue: most };
}

// no `$ref` or `$dynamicRef` anywhere, and no object met twice (a YAML alias shares one)
function isPlainTree(schema: JsonSchema): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (seen.has(value)) return false;
    seen.add(value);
    if (!Array.isArray(value) && (Object.hasOwn(value, '$ref') || Object.hasOwn(value, '$dynamicRef'))) return false;
    for (const child of Object.values(value)) stack.push(child);
  }
  return true;
}

function describePath(path: Array<string | number>): string {
  return path.length === 0 ? 'the params schema' : path.join('.');
}

function largest(counts: Counts): number {
  let most = 0;
  for (const count of counts.values()) most = Math.max(most, count);
  return most;
}

function sameCounts(a: Counts, b: Counts): boolean {
  if (a.size !== b.size) return false;
  for (const [node, count] of a) if (b.get(node) !== count) return false;
  return true;
}

type NameMatcher = (pattern: string, name: string) => boolean;

/** The subschemas applied to one value inside the current one, one entry per kind of value it may be. */
type ChildStep = Counts & { keyName?: boolean };

// every name `properties` names, any other name, each position prefixItems names, any other item, a property's name
function childSteps(nodes: SchemaGraphNode[], level: Counts, mayMatch: NameMatcher): ChildStep[] {
  const names = new Set<string>();
  let positions = 0;
  for (const node of level.keys()) {
    for (const name of nodes[node]!.properties.keys()) names.add(name);
    positions = Math.max(positions, nodes[node]!.prefixItems.length);
  }
  const steps: ChildStep[] = [];
  for (const name of names) steps.push(step(level, nodes, (node) => propertyTargets(node, name, mayMatch)));
  steps.push(step(level, nodes, (node) => propertyTargets(node, undefined, mayMatch)));
  for (let position = 0; position <= positions; position++) steps.push(step(level, nodes, (node) => itemTargets(node, position)));
  const keyName: ChildStep = step(level, nodes, (node) => (node.propertyNames === undefined ? [] : [node.propertyNames]));
  keyName.keyName = true;
  steps.push(keyName);
  return steps.filter((counts) => counts.size > 0);
}

function step(level: Counts, nodes: SchemaGraphNode[], targets: (node: SchemaGraphNode) => number[]): ChildStep {
  const counts: ChildStep = new Map();
  for (const [node, count] of level) {
    for (const target of targets(nodes[node]!)) if (target >= 0) counts.set(target, Math.min(CAP, (counts.get(target) ?? 0) + count));
  }
  return counts;
}

// the subschemas ajv applies to the value of property `name` (undefined: a name `properties` does not name, which
// may match every pattern and still be additional)
function propertyTargets(node: SchemaGraphNode, name: string | undefined, mayMatch: NameMatcher): number[] {
  const targets: number[] = [];
  const named = name === undefined ? undefined : node.properties.get(name);
  if (named !== undefined) targets.push(named);
  let matched = named !== undefined;
  for (const { pattern, node: target } of node.patterns) {
    if (name === undefined || mayMatch(pattern, name)) {
      targets.push(target);
      matched = true;
    }
  }
  if (node.additionalProperties !== undefined && (!matched || name === undefined)) targets.push(node.additionalProperties);
  if (node.unevaluatedProperties !== undefined) targets.push(node.unevaluatedProperties);
  return targets;
}

function itemTargets(node: SchemaGraphNode, position: number): number[] {
  const targets: number[] = [];
  if (position < node.prefixItems.length) targets.push(node.prefixItems[position]!);
  else if (node.items !== undefined) targets.push(node.items);
  if (node.contains !== undefined) targets.push(node.contains);
  if (node.unevaluatedItems !== undefined) targets.push(node.unevaluatedItems);
  return targets;
}

/** Follows the in-place edges from the subschemas applied to a value, counting each subschema's applications. */
class CostCounter {
  constructor(
    private readonly nodes: SchemaGraphNode[],
    private readonly describe: (path: Array<string | number>) => string,
  ) {}

  close(start: Counts, depth: number): { counts: Counts } | { problem: SchemaCostProblem } {
    const order = this.topologicalOrder([...start.keys()]);
    if ('loop' in order) return { problem: this.loopProblem(order.loop, depth) };
    const counts: Counts = new Map(start);
    const from = new Map<number, number[]>();
    for (const node of order.nodes) {
      const count = counts.get(node) ?? 0;
      for (const edge of this.nodes[node]!.inPlace) {
        counts.set(edge.node, Math.min(CAP, (counts.get(edge.node) ?? 0) + count));
        from.set(edge.node, [...(from.get(edge.node) ?? []), node]);
      }
    }
    for (const [node, count] of counts) {
      if (count > MAX_CHECKS_PER_VALUE) return { problem: this.tooOften(node, depth, from.get(node) ?? []) };
    }
    return { counts };
  }

  // iterative depth-first search: a chain of thousands of references must not overflow the stack
  private topologicalOrder(starts: number[]): { nodes: number[] } | { loop: number[] } {
    const state = new Map<number, 'open' | 'done'>();
    const finished: number[] = [];
    for (const start of starts) {
      if (state.has(start)) continue;
      const stack: Array<{ node: number; next: number }> = [{ node: start, next: 0 }];
      state.set(start, 'open');
      while (stack.length > 0) {
        const top = stack.at(-1)!;
        const edges = this.nodes[top.node]!.inPlace;
        if (top.next === edges.length) {
          state.set(top.node, 'done');
          finished.push(top.node);
          stack.pop();
          continue;
        }
        const target = edges[top.next++]!.node;
        if (state.get(target) === 'open') return { loop: [...stack.slice(stack.findIndex((entry) => entry.node === target)).map((entry) => entry.node), target] };
        if (!state.has(target)) {
          state.set(target, 'open');
          stack.push({ node: target, next: 0 });
        }
      }
    }
    return { nodes: finished.reverse() };
  }

  private loopProblem(loop: number[], depth: number): SchemaCostProblem {
    const closing = loop.at(-2)!;
    return {
      path: this.nodes[closing]!.path,
      kind: 'loop',
      depth,
      message: `'${this.where(closing)}' leads back to '${this.where(loop.at(-1)!)}' through ${this.route(loop)} without going into a value of the params: ajv would apply them to the same value until its stack overflows; a recursion must go through 'properties', 'items' or another keyword that checks a value inside the current one`,
    };
  }

  private tooOften(node: number, depth: number, from: number[]): SchemaCostProblem {
    const routes = [...new Set(from)].slice(0, 3).map((source) => `'${this.where(source)}'`);
    const reached = routes.length > 1 ? `, reached from ${routes.join(' and ')}` : '';
    return {
      path: this.nodes[node]!.path,
      kind: 'multiplied',
      depth,
      message:
        `'${this.where(node)}' would be applied more than ${MAX_CHECKS_PER_VALUE} times to one value ${depth === 0 ? 'of the params (the object itself)' : `${depth} level${depth === 1 ? '' : 's'} deep in the params`}${reached}: ` +
        `more than one branch of a combinator (anyOf, oneOf, allOf, if/then/else, not, dependentSchemas) or of the references in it leads back to it, so the work of validating params multiplies at each level (ajv tries every branch when a value fails them) and one call could hold the gateway for minutes; let a single branch hold the recursion`,
    };
  }

  private where(node: number): string {
    return this.describe(this.nodes[node]!.path);
  }

  private route(loop: number[]): string {
    const keywords: string[] = [];
    for (let index = 0; index + 1 < loop.length; index++) {
      const edge = this.nodes[loop[index]!]!.inPlace.find((candidate) => candidate.node === loop[index + 1]);
      if (edge !== undefined && !keywords.includes(edge.keyword)) keywords.push(edge.keyword);
    }
    return keywords.map((keyword) => `'${keyword}'`).join(', ');
  }
}
