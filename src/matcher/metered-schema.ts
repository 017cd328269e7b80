import type { DataValidateFunction, FuncKeywordDefinition } from 'ajv/dist/types/index.js';
import type { JsonSchema } from '../core/index.js';
import { schemaGraph, type SchemaGraphNode } from '../core/index.js';
import { linearPattern } from './linear-regexp.js';
import { errorHooks, ERROR_HOOKS } from './error-work.js';
import { charge } from './params-work.js';

/** The keyword the gateway adds to each subschema it compiles: what applying that subschema to one value costs. */
export const WORK_KEYWORD = 'x-hldp-work';

/** What applying one subschema, and every subschema ajv applies with it to the same value, costs at most. */
interface Cost {
  /** units per application: each keyword (a list's each entry) of each subschema in the closure */
  units: number;
  /** subschemas in the closure that read a string whole (a length, a format): each costs the string's length */
  text: number;
  /** subschemas in the closure with `uniqueItems`: each costs the array's length */
  unique: number;
}

/** What a subschema's applicators cost on the values inside the value it is applied to: charged before ajv goes in. */
interface Plan {
  /** the subschema's own closure, charged only where it is the params' root */
  root?: Cost;
  prefixItems: Cost[];
  items?: Cost;
  /** `contains` and `unevaluatedItems`: applied to every item */
  everyItem?: Cost;
  properties: Record<string, Cost>;
  /** a property `properties` does not name: `additionalProperties` */
  other?: Cost;
  /** every property: each `patternProperties` (as if all matched), `unevaluatedProperties` */
  everyProperty?: Cost;
  /** `propertyNames`, applied to each name */
  names?: Cost;
}

// keywords whose check reads a string value whole (a length counts code points; a format parses the text); `pattern`
// is charged by its own keyword, by the size of its program
const READS_TEXT = ['maxLength', 'minLength', 'format'];
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);

type SchemaObject = Record<string, unknown>;
const isObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy of a params schema whose subschemas that go into values (`items`, `properties`, …) carry {@link WORK_KEYWORD}:
 * what the subschemas they apply to the values inside cost, charged to the validation's work budget before ajv applies
 * them. So the keywords a call's values get are counted, not only how often one subschema is applied (`items: {allOf:
 * [2,000 checks]}` is a plain tree, each check applied once per item: review X, X2). Only keys are added: every JSON
 * pointer of a `$ref` still names the same place. One keyword call per value that has values inside, not per
 * subschema: a keyword on each subschema made validation ~8 times slower.
 */
export function meteredSchema(schema: JsonSchema): JsonSchema {
  // a subschema shared by two places (a YAML alias) stays one object, and one node of the graph
  const copy = structuredClone(schema);
  const nodes = schemaGraph(copy);
  const objects = nodes.map((node) => at(copy, node.path));
  const costs = closureCosts(nodes, objects);
  const cost = (node: number | undefined): Cost | undefined => (node === undefined ? undefined : costs[node]);
  nodes.forEach((node, index) => {
    const plan: Plan = { prefixItems: node.prefixItems.map((item) => costs[item]!), properties: {} };
    if (index === 0) plan.root = costs[0];
    plan.items = cost(node.items);
    plan.everyItem = sum([cost(node.contains), cost(node.unevaluatedItems)]);
    for (const [name, target] of node.properties) plan.properties[name] = costs[target]!;
    plan.other = cost(node.additionalProperties);
    plan.everyProperty = sum([...node.patterns.map((pattern) => costs[pattern.node]), cost(node.unevaluatedProperties)]);
    plan.names = cost(node.propertyNames);
    const object = objects[index];
    if (object !== undefined && (index === 0 || goesInside(plan))) object[WORK_KEYWORD] = plan;
  });
  return copy;
}

function goesInside(plan: Plan): boolean {
  return plan.prefixItems.length > 0 || Object.keys(plan.properties).length > 0 || [plan.items, plan.everyItem, plan.other, plan.everyProperty, plan.names].some((cost) => cost !== undefined);
}

function at(schema: unknown, path: Array<string | number>): SchemaObject | undefined {
  let place: unknown = schema;
  for (const key of path) place = isObject(place) || Array.isArray(place) ? (place as Record<string | number, unknown>)[key] : undefined;
  return isObject(place) ? place : undefined;
}

// each node's closure over the in-place edges, counted with multiplicity (a subschema reached twice is applied twice);
// the caller refused schemas whose in-place edges loop (paramsSchemaCost), a loop met anyway counts its node once
function closureCosts(nodes: SchemaGraphNode[], objects: Array<SchemaObject | undefined>): Cost[] {
  const costs: Cost[] = [];
  const state: Array<'open' | undefined> = [];
  const visit = (start: number): void => {
    const stack: Array<{ node: number; next: number }> = [{ node: start, next: 0 }];
    state[start] = 'open';
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      const edges = nodes[top.node]!.inPlace;
      if (top.next < edges.length) {
        const target = edges[top.next++]!.node;
        if (costs[target] === undefined && state[target] !== 'open') {
          state[target] = 'open';
          stack.push({ node: target, next: 0 });
        }
        continue;
      }
      stack.pop();
      const own = ownCost(objects[top.node]);
      costs[top.node] = sum([own, ...edges.map((edge) => costs[edge.node])])!;
    }
  };
  for (let node = 0; node < nodes.length; node++) if (costs[node] === undefined) visit(node);
  return costs;
}

function ownCost(schema: SchemaObject | undefined): Cost {
  if (schema === undefined) return { units: 1, text: 0, unique: 0 };
  let units = 1;
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    // a list is checked entry by entry (`required`, `enum`), a constant compared as deep as it goes
    if (key === 'enum' || key === 'const') units += Math.ceil(JSON.stringify(value ?? null).length / 16);
    else if (Array.isArray(value)) units += value.length + (key === 'prefixItems' ? defaultsSize(value) : 0);
    // a map's every entry is looked at on each value, present or not: `properties` of K names, `dependentRequired`
    // and its lists, `dependentSchemas` (review Y, Y1: 100,000 `{}` against 2,000 of them held the gateway 26 s)
    else if (isObject(value) && !DEFINITIONS.has(key)) units += Object.keys(value).length + (key === 'dependentRequired' ? listsSize(value) : 0) + (key === 'properties' ? defaultsSize(Object.values(value)) : 0);
    else units += 1;
  }
  return { units, text: READS_TEXT.filter((key) => key in schema).length, unique: schema['uniqueItems'] === true ? 1 : 0 };
}

const DEFINITIONS = new Set(['$defs', 'definitions']);

// ajv (useDefaults) writes a fresh copy of a property's or item's `default` into each value that lacks it: charged by
// its JSON text, a unit a character, since each copy is memory too (review Y, Y3: a 10 KB default and 90 KB of `{}`
// filled the heap and the gateway died)
function defaultsSize(subschemas: readonly unknown[]): number {
  let size = 0;
  for (const subschema of subschemas) if (isObject(subschema) && 'default' in subschema) size += JSON.stringify(subschema['default'] ?? null).length;
  return size;
}

function listsSize(map: SchemaObject): number {
  let size = 0;
  for (const list of Object.values(map)) if (Array.isArray(list)) size += list.length;
  return size;
}

function sum(costs: Array<Cost | undefined>): Cost | undefined {
  let total: Cost | undefined;
  for (const cost of costs) {
    if (cost === undefined) continue;
    total = { units: (total?.units ?? 0) + cost.units, text: (total?.text ?? 0) + cost.text, unique: (total?.unique ?? 0) + cost.unique };
  }
  return total;
}

/** What a closure costs on one value: its keywords, and the length of a string or array for those that read it whole. */
export function costOn(cost: Cost | undefined, value: unknown): number {
  if (cost === undefined) return 0;
  if (typeof value === 'string') return cost.units + cost.text * value.length;
  if (Array.isArray(value)) return cost.units + cost.unique * value.length;
  return cost.units;
}

/** The work of the values inside `value` that a subschema's plan applies to (its root closure too, at the root). */
export function planCost(plan: Plan, value: unknown, isRoot: boolean): number {
  let units = isRoot ? costOn(plan.root, value) : 0;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      units += costOn(index < plan.prefixItems.length ? plan.prefixItems[index] : plan.items, item) + costOn(plan.everyItem, item);
    });
  } else if (isObject(value)) {
    for (const name of Object.keys(value)) {
      const item = value[name];
      units += costOn(Object.hasOwn(plan.properties, name) ? plan.properties[name] : plan.other, item) + costOn(plan.everyProperty, item) + costOn(plan.names, name);
    }
  }
  return units;
}

/** Charges the values inside a value before ajv applies a subschema's applicators to them. */
export const workKeyword: FuncKeywordDefinition = {
  keyword: WORK_KEYWORD,
  schemaType: 'object',
  errors: false,
  validate: (plan: Plan, data: unknown, _parent?: unknown, context?: { instancePath: string }) => {
    const path = context?.instancePath ?? '';
    const units = planCost(plan, data, path === '');
    charge(units, path, () => `the checks of the values inside it (${units.toLocaleString('en-US')} units)`);
    return true;
  },
};

/**
 * JSON Schema's `pattern` on RE2, charged by its program's size times the text's length before it runs, and not run
 * at all on a string longer than its sibling `maxLength`, which already fails it (ajv checks every keyword, allErrors).
 */
export const patternKeyword: FuncKeywordDefinition = {
  keyword: 'pattern',
  type: 'string',
  schemaType: 'string',
  compile(pattern: string, parent: SchemaObject) {
    const compiled = linearPattern(pattern);
    const maxLength = typeof parent['maxLength'] === 'number' ? parent['maxLength'] : Infinity;
    const check: DataValidateFunction = (text: string, context?: { instancePath: string }): boolean => {
      check.errors = undefined;
      if (text.length > maxLength && codePoints(text, maxLength) > maxLength) return true;
      if (compiled.find(text, context?.instancePath ?? '')) return true;
      errorHooks[ERROR_HOOKS.error](context?.instancePath ?? '');
      check.errors = [{ keyword: 'pattern', message: `must match pattern "${pattern}"`, params: { pattern } }];
      return false;
    };
    return check;
  },
};

// a string's length as JSON Schema counts it, in code points; counting stops once past `most`
function codePoints(text: string, most: number): number {
  let count = 0;
  for (let index = 0; index < text.length && count <= most; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) index++;
    count++;
  }
  return count;
}
