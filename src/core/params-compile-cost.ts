import { schemaGraph } from './schema-graph.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * The most compile units a params schema may take. ajv compiles a tool's schema on the event loop at the tool's first
 * call, in time about proportional to the code it writes: `items: {allOf: [2,000 checks]}` took ~1 s of CPU, during
 * which /healthz and every other caller waited. A unit is about one keyword's code (see {@link paramsCompileCost});
 * measured on a 2-core machine at load ~20, 24 kinds of keyword compile at 0.013-0.134 ms a unit (medians), so this
 * bound holds a first call to ~7-67 ms of CPU under that load, less on a quiet one (bench/HISTORY.md, params14).
 * It was 250 at first; the 3,148 real tools of BFCL v4 take at most 114 (median far lower), and 250 refused a
 * plain tool of ~48 string parameters with a maxLength each: a bound for hostile schemas, not for large honest ones.
 */
export const MAX_COMPILE_UNITS = 500;

/** What compiling a params schema costs, and where most of it is when over MAX_COMPILE_UNITS. */
export interface CompileCost {
  units: number;
  problem?: { path: Array<string | number>; message: string };
}

/** How to weigh a schema's patterns and name its places. */
export interface CompileCostOptions {
  /** the size of RE2's program for a pattern (its instructions), which compiling it takes time in proportion to */
  programSize?: (pattern: string) => number;
  /** a subschema's place as its author reads it (default: the keys joined with dots) */
  describe?: (path: Array<string | number>) => string;
}

type SchemaObject = Record<string, unknown>;
const isObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

// keywords ajv writes no code for (`default` it does: useDefaults fills it in)
const FREE = new Set(['description', 'title', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly', '$schema', '$id', '$anchor', '$dynamicAnchor', '$vocabulary', '$defs', 'definitions', 'contentEncoding', 'contentMediaType', 'contentSchema']);
const ONE_SCHEMA = new Set(['not', 'if', 'then', 'else', 'items', 'contains', 'additionalProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
// applied to the value itself: the names `properties` evaluates there count for an `unevaluatedProperties` beside them
const IN_PLACE = new Set(['not', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas']);
// ajv writes `enum` and `required` out one entry at a time up to 200 (its loopEnum, loopRequired), then loops
const UNROLLED = 200;
const ENTRIES_PER_UNIT = 8;
// ajv inlines a reference whose target holds none of these (its inlineRef), and calls a function for the others
const REF_KEYWORDS = new Set(['$ref', '$recursiveRef', '$recursiveAnchor', '$dynamicRef', '$dynamicAnchor']);
const CAP = Number.MAX_SAFE_INTEGER;
// RE2 compiles each pattern as ajv compiles the schema: ~1 ms for a short one at load 20, as much as 7 other keywords,
// and about 1 ms more per 150 instructions of its program (`(?:ab|cd|ef){300}`: 2,402 instructions, ~14 ms)
const PATTERN_UNITS = 7;
// a target ajv calls is a function of its own, made with its own scope: ~0.5 ms each at load 20 (a chain of 40)
const FUNCTION_UNITS = 5;
const INSTRUCTIONS_PER_UNIT = 25;

/**
 * Counts the code ajv writes for a params schema, without running it: each subschema and keyword as ajv meets them
 * from the root (a subschema shared by two places, or the target of a `$ref` ajv inlines, once per place), each entry
 * of a schema list or map, `enum` and `required` entries a few to a unit, a property name once more for each
 * `additionalProperties` or `unevaluatedProperties` that compares names against it, and each pattern by
 * its RE2 program's size. A `$ref` ajv calls (its target holds a reference) costs one unit, its target once, as a function of its own.
 */
export function paramsCompileCost(schema: JsonSchema, options: CompileCostOptions = {}): CompileCost {
  const programSize = options.programSize ?? ((pattern: string) => pattern.length);
  const counter = new CompileCounter(schema, (pattern) => PATTERN_UNITS + Math.ceil(programSize(pattern) / INSTRUCTIONS_PER_UNIT));
  const units = counter.total();
  if (units <= MAX_COMPILE_UNITS) return { units };
  const { path, units: held } = counter.heaviest();
  const describe = options.describe ?? ((at: Array<string | number>) => (at.length === 0 ? 'the params schema' : at.join('.')));
  const part = path.length === 0 ? '' : `; '${describe(path)}' holds ${held.toLocaleString('en-US')} of them`;
  return {
    units,
    problem: {
      path,
      message:
        `the params schema takes ${units.toLocaleString('en-US')} units to compile, more than the ${MAX_COMPILE_UNITS} a tool's may take${part}: ` +
        `the gateway compiles it on its event loop at the tool's first call (~0.4 ms of CPU a unit), and every other request waits meanwhile; ` +
        `cut the subschemas, patterns or properties it repeats, or split the tool`,
    },
  };
}

interface Counted {
  units: number;
  /** property names `properties` evaluates on this value, here and through in-place keywords */
  names: number;
}

class CompileCounter {
  private readonly counted = new Map<SchemaObject, Counted>();
  private readonly called = new Set<SchemaObject>();
  private targets: Map<SchemaObject, SchemaObject[]> | undefined;
  private readonly hasRefs = new Map<object, boolean>();

  constructor(
    private readonly root: JsonSchema,
    private readonly patternUnits: (pattern: string) => number,
  ) {}

  total(): number {
    let units = this.count(this.root).units;
    // each target ajv calls is compiled once, as a function of its own; counting one may reach more
    const done = new Set<SchemaObject>();
    for (let more = true; more; ) {
      more = false;
      for (const target of [...this.called]) {
        if (done.has(target)) continue;
        done.add(target);
        more = true;
        units = Math.min(CAP, units + FUNCTION_UNITS + this.count(target).units);
      }
    }
    return units;
  }

  /**
   * Where most of the units are: down from the root while one subschema holds more than half of its parent's, or, where
   * none does, the keyword whose subschemas together do.
   */
  heaviest(): { path: Array<string | number>; units: number } {
    const path: Array<string | number> = [];
    let here: unknown = this.root;
    for (;;) {
      const whole = this.count(here).units;
      const groups = new Map<string, number>();
      let best: { key: Array<string | number>; value: unknown; units: number } | undefined;
      for (const child of childPlaces(here)) {
        const units = this.count(child.value).units;
        const keyword = String(child.key[0]);
        groups.set(keyword, (groups.get(keyword) ?? 0) + units);
        if (best === undefined || units > best.units) best = { ...child, units };
      }
      if (best !== undefined && best.units * 2 > whole) {
        path.push(...best.key);
        here = best.value;
        continue;
      }
      for (const [keyword, units] of groups) if (units * 2 > whole && childPlaces(here).length > 1) return { path: [...path, keyword], units };
      return { path, units: whole };
    }
  }

  private count(schema: unknown): Counted {
    if (!isObject(schema)) return { units: 1, names: 0 };
    const known = this.counted.get(schema);
    if (known !== undefined) return known;
    // a loop of objects (a YAML alias inside itself) is ajv's to refuse; counted once here
    this.counted.set(schema, { units: 1, names: 0 });
    let units = 1;
    let names = 0;
    let comparesNames = false;
    for (const [key, value] of Object.entries(schema)) {
      if (FREE.has(key)) continue;
      units += 1;
      if (ONE_SCHEMA.has(key)) units += this.count(value).units;
      else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        for (const item of value) {
          const inner = this.count(item);
          units += 1 + inner.units;
          if (IN_PLACE.has(key)) names += inner.names;
        }
      } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
        for (const [name, item] of Object.entries(value)) {
          const inner = this.count(item);
          units += 1 + inner.units + (key === 'patternProperties' ? this.patternUnits(name) : 0);
          if (key === 'properties') names += 1;
          if (IN_PLACE.has(key)) names += inner.names;
        }
      } else if (key === 'pattern' && typeof value === 'string') units += this.patternUnits(value);
      else if ((key === 'enum' || key === 'required' || key === 'type') && Array.isArray(value)) units += Math.ceil(Math.min(value.length, UNROLLED) / ENTRIES_PER_UNIT);
      else if (key === 'dependentRequired' && isObject(value)) {
        for (const list of Object.values(value)) units += 1 + (Array.isArray(list) ? Math.ceil(Math.min(list.length, UNROLLED) / ENTRIES_PER_UNIT) : 0);
      } else if (key === '$ref' || key === '$dynamicRef') units += this.reference(schema);
      if (key === 'additionalProperties' || key === 'unevaluatedProperties') comparesNames = true;
      if (IN_PLACE.has(key) && isObject(value) && ONE_SCHEMA.has(key)) names += this.count(value).names;
    }
    if (comparesNames) units += names;
    const result = { units: Math.min(CAP, units), names };
    this.counted.set(schema, result);
    return result;
  }

  // an inlined target's code is written at each reference; a called one once, counted by total()
  private reference(schema: SchemaObject): number {
    let units = 0;
    for (const target of this.targetsOf(schema)) {
      if (this.holdsReference(target)) this.called.add(target);
      else units += this.count(target).units;
    }
    return units;
  }

  private targetsOf(schema: SchemaObject): SchemaObject[] {
    if (this.targets === undefined) {
      this.targets = new Map();
      const nodes = schemaGraph(this.root);
      for (const node of nodes) {
        const found = node.inPlace.filter((edge) => edge.keyword === '$ref' || edge.keyword === '$dynamicRef');
        this.targets.set(node.schema, found.map((edge) => nodes[edge.node]!.schema));
      }
    }
    return this.targets.get(schema) ?? [];
  }

  // ajv's hasRef: any reference keyword anywhere inside, in schema positions or not
  private holdsReference(value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const known = this.hasRefs.get(value);
    if (known !== undefined) return known;
    this.hasRefs.set(value, false);
    let found = false;
    for (const [key, item] of Object.entries(value)) {
      if ((!Array.isArray(value) && REF_KEYWORDS.has(key)) || this.holdsReference(item)) {
        found = true;
        break;
      }
    }
    this.hasRefs.set(value, found);
    return found;
  }
}

// the subschemas right under a subschema, with the keys that lead to each
function childPlaces(schema: unknown): Array<{ key: Array<string | number>; value: unknown }> {
  if (!isObject(schema)) return [];
  const places: Array<{ key: Array<string | number>; value: unknown }> = [];
  for (const [key, value] of Object.entries(schema)) {
    if (ONE_SCHEMA.has(key) && isObject(value)) places.push({ key: [key], value });
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) value.forEach((item, index) => places.push({ key: [key, index], value: item }));
    else if (SCHEMA_MAPS.has(key) && isObject(value)) for (const [name, item] of Object.entries(value)) places.push({ key: [key, name], value: item });
  }
  return places;
}
