import type { JsonSchema } from './tool-definition.js';

/**
 * One subschema of a params schema and the subschemas ajv applies from it: `inPlace` to the same value (`$ref`,
 * `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `$dynamicRef`), the others to a value
 * inside it. A subschema `true` or `false` is no node: it costs ajv one comparison and leads nowhere.
 */
export interface SchemaGraphNode {
  /** where the subschema is in the schema, from its root */
  path: Array<string | number>;
  /** the subschema itself */
  schema: Record<string, unknown>;
  /** one entry per edge: a subschema reached twice from here (`allOf: [{$ref: a}, {$ref: a}]`) is listed twice */
  inPlace: Array<{ node: number; keyword: string }>;
  properties: Map<string, number>;
  patterns: Array<{ pattern: string; node: number }>;
  additionalProperties?: number;
  propertyNames?: number;
  unevaluatedProperties?: number;
  prefixItems: number[];
  items?: number;
  contains?: number;
  unevaluatedItems?: number;
}

type Path = Array<string | number>;
type SchemaObject = Record<string, unknown>;

const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'] as const;
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const CHILD_SINGLE = ['additionalProperties', 'propertyNames', 'unevaluatedProperties', 'items', 'contains', 'unevaluatedItems'] as const;
// a root without $id: any absolute base resolves `#/…`, `#anchor` and relative `$id`s the way ajv does
const ROOT_BASE = 'hldp-params:/schema.json';

const isObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The graph of a params schema's subschemas, node 0 its root, with every `$ref` and `$dynamicRef` followed to the
 * subschema it names (by JSON pointer, `$anchor`, `$dynamicAnchor` or `$id`). A reference that names nothing in the
 * schema is no edge: ajv refuses to compile such a schema, and the call is answered so.
 */
export function schemaGraph(schema: JsonSchema): SchemaGraphNode[] {
  return new GraphBuilder().build(schema);
}

class GraphBuilder {
  private readonly nodes: SchemaGraphNode[] = [];
  private readonly ids = new Map<SchemaObject, number>();
  private readonly bases = new Map<SchemaObject, string>();
  private readonly resources = new Map<string, SchemaObject>();
  private readonly anchors = new Map<string, SchemaObject>();
  private readonly dynamicAnchors = new Map<string, SchemaObject[]>();
  private readonly references: Array<{ from: number; keyword: '$ref' | '$dynamicRef'; target: string; base: string }> = [];

  build(schema: JsonSchema): SchemaGraphNode[] {
    this.resources.set(ROOT_BASE, schema);
    this.visit(schema, [], ROOT_BASE);
    // a reference may name a subschema found later in the walk, or one in no schema position (found on demand)
    for (let index = 0; index < this.references.length; index++) {
      const { from, keyword, target, base } = this.references[index]!;
      for (const found of this.resolve(keyword, target, base)) this.nodes[from]!.inPlace.push({ node: found, keyword });
    }
    return this.nodes;
  }

  // a subschema met twice (a YAML alias) is one node: walking it per path could cost as much as the paths
  private visit(schema: unknown, path: Path, parentBase: string): number | undefined {
    if (!isObject(schema)) return undefined;
    const known = this.ids.get(schema);
    if (known !== undefined) return known;
    const id = this.nodes.length;
    this.ids.set(schema, id);
    const node: SchemaGraphNode = { path, schema, inPlace: [], properties: new Map(), patterns: [], prefixItems: [] };
    this.nodes.push(node);
    const base = this.register(schema, parentBase);
    for (const keyword of ['$ref', '$dynamicRef'] as const) {
      if (typeof schema[keyword] === 'string') this.references.push({ from: id, keyword, target: schema[keyword], base });
    }
    const at = (...keys: Path): Path => [...path, ...keys];
    for (const keyword of IN_PLACE_SINGLE) this.edge(node.inPlace, keyword, this.visit(schema[keyword], at(keyword), base));
    for (const keyword of IN_PLACE_LISTS) {
      const list = schema[keyword];
      if (Array.isArray(list)) list.forEach((item, index) => this.edge(node.inPlace, keyword, this.visit(item, at(keyword, index), base)));
    }
    for (const [name, item] of entries(schema.dependentSchemas)) this.edge(node.inPlace, 'dependentSchemas', this.visit(item, at('dependentSchemas', name), base));
    for (const [name, item] of entries(schema.properties)) {
      const child = this.visit(item, at('properties', name), base);
      if (child !== undefined) node.properties.set(name, child);
    }
    for (const [pattern, item] of entries(schema.patternProperties)) {
      const child = this.visit(item, at('patternProperties', pattern), base);
      if (child !== undefined) node.patterns.push({ pattern, node: child });
    }
    // each item of prefixItems keeps its place: a `true` there is no node, but the items after it stay where they are
    if (Array.isArray(schema.prefixItems)) node.prefixItems = schema.prefixItems.map((item, index) => this.visit(item, at('prefixItems', index), base) ?? -1);
    for (const keyword of CHILD_SINGLE) {
      const child = this.visit(schema[keyword], at(keyword), base);
      if (child !== undefined) node[keyword] = child;
    }
    // not applied by themselves, but what references name
    for (const keyword of ['$defs', 'definitions']) for (const [name, item] of entries(schema[keyword])) this.visit(item, at(keyword, name), base);
    return id;
  }

  private edge(list: SchemaGraphNode['inPlace'], keyword: string, node: number | undefined): void {
    if (node !== undefined) list.push({ node, keyword });
  }

  // the base URI a subschema's references resolve against: its own $id, else its parent's
  private register(schema: SchemaObject, parentBase: string): string {
    let base = parentBase;
    if (typeof schema.$id === 'string') {
      const url = parseUrl(schema.$id, parentBase);
      if (url !== undefined) {
        url.hash = '';
        base = url.href;
        this.resources.set(base, schema);
      }
    }
    this.bases.set(schema, base);
    if (typeof schema.$anchor === 'string') this.anchors.set(`${base}#${schema.$anchor}`, schema);
    if (typeof schema.$dynamicAnchor === 'string') {
      this.anchors.set(`${base}#${schema.$dynamicAnchor}`, schema);
      this.dynamicAnchors.set(schema.$dynamicAnchor, [...(this.dynamicAnchors.get(schema.$dynamicAnchor) ?? []), schema]);
    }
    return base;
  }

  // a $dynamicRef may land on any $dynamicAnchor of its name (which one depends on the path taken): every one is an edge
  private resolve(keyword: '$ref' | '$dynamicRef', target: string, base: string): number[] {
    const found = new Set<SchemaObject>();
    const direct = this.lookup(target, base);
    if (direct !== undefined) found.add(direct);
    const url = parseUrl(target, base);
    const fragment = url === undefined ? '' : decodeFragment(url.hash);
    if (keyword === '$dynamicRef' && fragment !== undefined && !fragment.startsWith('/')) for (const anchor of this.dynamicAnchors.get(fragment) ?? []) found.add(anchor);
    const nodes: number[] = [];
    for (const schema of found) {
      const node = this.ids.get(schema) ?? this.visit(schema, ['$ref', target], this.bases.get(schema) ?? base);
      if (node !== undefined) nodes.push(node);
    }
    return nodes;
  }

  private lookup(target: string, base: string): SchemaObject | undefined {
    const url = parseUrl(target, base);
    if (url === undefined) return undefined;
    const fragment = decodeFragment(url.hash);
    url.hash = '';
    const resource = this.resources.get(url.href);
    if (resource === undefined || fragment === undefined) return undefined;
    if (fragment === '') return resource;
    if (!fragment.startsWith('/')) return this.anchors.get(`${url.href}#${fragment}`);
    let value: unknown = resource;
    for (const segment of fragment.slice(1).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      value = Array.isArray(value) ? value[Number(key)] : isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    }
    return isObject(value) ? value : undefined;
  }
}

function entries(value: unknown): Array<[string, unknown]> {
  return isObject(value) ? Object.entries(value) : [];
}

function parseUrl(reference: string, base: string): URL | undefined {
  try {
    return new URL(reference, base);
  } catch {
    return undefined;
  }
}

function decodeFragment(hash: string): string | undefined {
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return undefined;
  }
}
