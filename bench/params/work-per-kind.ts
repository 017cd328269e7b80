// What the params work budget buys, per kind of check it meters: for each kind, a schema with it and the params a
// caller could send (at most 1 MiB, max_body_bytes' default) sized to just under the budget's 10,000,000 units, then
// the CPU of the validator's check of them, the median of --runs (the machine is shared: CPU time, not wall time).
// Prints per kind the units charged, the body's size, CPU ms, the CPU of the same body under `xs: {}` (cloning and
// walking it, whatever the checks), ns a unit of what is left and its ratio to the median kind's.
// `npx tsx bench/params/work-per-kind.ts [--runs 5] [--only kind,kind]`
import { readFileSync } from 'node:fs';
import { createParamsValidator } from '../../src/matcher/validate-params.js';
import { lastWork, MAX_PARAMS_WORK } from '../../src/matcher/params-work.js';
import type { ToolDefinition } from '../../src/core/index.js';

interface Kind {
  name: string;
  /** the schema of `xs`, the one parameter */
  xs: Record<string, unknown>;
  /** top-level keywords beside `properties` ($defs) */
  root?: Record<string, unknown>;
  /** the value of `xs` for size n */
  make: (n: number) => unknown;
}

const MAX_BODY = 1024 * 1024;
const deep = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { a: deep(depth - 1, leaf), b: 1 });
const many = <T>(n: number, item: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => item(i));
const names = (count: number): string[] => Array.from({ length: count }, (_, i) => `p${i}`);

const KINDS: Kind[] = [
  { name: 'baseline: 20 minimums passing', xs: { type: 'array', items: { allOf: many(20, (i) => ({ minimum: -i - 1 })) } }, make: (n) => many(n, () => 0) },
  { name: 'errors: 20 minimums failing', xs: { type: 'array', items: { allOf: many(20, (i) => ({ minimum: i + 1 })) } }, make: (n) => many(n, () => 0) },
  { name: 'pattern a[ab]{99}c, one string', xs: { type: 'string', pattern: 'a[ab]{99}c' }, make: (n) => 'ab'.repeat(n) },
  { name: 'pattern ^a$ failing on items', xs: { type: 'array', items: { type: 'string', pattern: '^a$' } }, make: (n) => many(n, () => 'b') },
  { name: 'format date-time', xs: { type: 'array', items: { type: 'string', format: 'date-time' } }, make: (n) => many(n, () => '2026-12-05T16:00:00.000000000000000000000000000000Z') },
  { name: 'format email, long', xs: { type: 'string', format: 'email' }, make: (n) => `${'a.'.repeat(n)}@x` },
  { name: 'format uri, long', xs: { type: 'string', format: 'uri' }, make: (n) => `http://x/${'a/'.repeat(n)}` },
  { name: 'format regex, long', xs: { type: 'string', format: 'regex' }, make: (n) => '(a|b)'.repeat(n) },
  { name: 'uniqueItems, long items', xs: { type: 'array', uniqueItems: true }, make: (n) => many(Math.max(1, Math.floor(n / 1000)), (i) => [i, ...many(1000, () => 0)]) },
  { name: 'enum of 8 deep objects', xs: { type: 'array', items: { enum: many(8, (i) => deep(12, i)) } }, make: (n) => many(n, () => deep(12, 99)) },
  { name: 'const deep object', xs: { type: 'array', items: { const: deep(40, 0) } }, make: (n) => many(n, () => deep(40, 1)) },
  { name: 'propertyNames maxLength', xs: { type: 'object', propertyNames: { maxLength: 8 } }, make: (n) => Object.fromEntries(many(n, (i) => [`k${i}`, 0])) },
  { name: 'contains + minContains', xs: { type: 'array', contains: { type: 'string', minLength: 3 }, minContains: 2 }, make: (n) => many(n, () => 0) },
  { name: 'dependentSchemas of 50', xs: { type: 'array', items: { type: 'object', dependentSchemas: Object.fromEntries(names(50).map((p) => [p, { required: ['q'] }])) } }, make: (n) => many(n, () => ({ p0: 1, p1: 1 })) },
  { name: 'dependentRequired of 100', xs: { type: 'array', items: { type: 'object', dependentRequired: Object.fromEntries(names(100).map((p) => [p, ['q']])) } }, make: (n) => many(n, () => ({})) },
  { name: 'if/then/else', xs: { type: 'array', items: { if: { minimum: 0 }, then: { maximum: 10 }, else: { minimum: -10 } } }, make: (n) => many(n, (i) => (i % 2 === 0 ? 5 : -5)) },
  { name: 'unevaluatedProperties', xs: { type: 'object', allOf: [{ properties: { a: {} } }, { patternProperties: { '^k': { type: 'number' } } }], unevaluatedProperties: { type: 'string' } }, make: (n) => Object.fromEntries(many(n, (i) => [`${i % 2 === 0 ? 'k' : 'z'}${i}`, i % 2 === 0 ? 1 : 'v'])) },
  { name: '$ref chain of 8', xs: { type: 'array', items: { $ref: '#/$defs/r0' } }, root: { $defs: Object.fromEntries(many(8, (i) => [`r${i}`, i === 7 ? { type: 'number' } : { allOf: [{ $ref: `#/$defs/r${i + 1}` }], minimum: 0 }])) }, make: (n) => many(n, () => 1) },
  { name: 'default of 2 KB', xs: { type: 'array', items: { type: 'object', properties: { t: { type: 'array', default: many(300, (i) => i) } } } }, make: (n) => many(n, () => ({})) },
  { name: 'map: properties of 60', xs: { type: 'array', items: { type: 'object', properties: Object.fromEntries(names(60).map((p) => [p, { type: 'number' }])) } }, make: (n) => many(n, () => ({})) },
  { name: 'multipleOf on huge numbers', xs: { type: 'array', items: { multipleOf: 0.0001 } }, make: (n) => many(n, (i) => 1.7e308 - i * 1e292) },
  { name: 'maxLength of astral text', xs: { type: 'string', maxLength: 10_000_000 }, make: (n) => '😀'.repeat(n) },
];

function tool(kind: Kind): ToolDefinition {
  return { name: 'bench', params_schema: { type: 'object', properties: { xs: kind.xs }, ...kind.root } } as unknown as ToolDefinition;
}

function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

// the size whose units are just under the budget (or whose body reaches 1 MiB), from the units of a small one
function sized(kind: Kind): { n: number; units: number; bytes: number; refused: boolean } {
  const validator = createParamsValidator(Number.MAX_SAFE_INTEGER);
  const definition = tool(kind);
  const measure = (n: number): number => {
    validator.validate(definition, { xs: kind.make(n) });
    return lastWork();
  };
  const small = 2_000;
  const perItem = Math.max(measure(small) / small, 1e-9);
  let n = Math.floor((0.95 * MAX_PARAMS_WORK) / perItem);
  while (JSON.stringify({ tool: 'bench', params: { xs: kind.make(n) } }).length > MAX_BODY) n = Math.floor(n * 0.9);
  let units = measure(n);
  while (units > MAX_PARAMS_WORK) units = measure((n = Math.floor(n * 0.9)));
  const result = createParamsValidator().validate(definition, { xs: kind.make(n) });
  const refused = !result.valid && result.problems.some((problem) => problem.message.includes('too costly'));
  return { n, units, bytes: JSON.stringify({ tool: 'bench', params: { xs: kind.make(n) } }).length, refused };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function main(): void {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf('--runs') + 1] ?? 5) || 5;
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
  const rows: Array<{ name: string; units: number; bytes: number; ms: number; body: number; max: number; ns: number; refused: boolean }> = [];
  for (const kind of KINDS.filter((k) => only === undefined || only.some((word) => k.name.includes(word)))) {
    const { n, units, bytes, refused } = sized(kind);
    const validator = createParamsValidator();
    const definition = tool(kind);
    validator.validate(definition, { xs: kind.make(1) });
    const unusable = validator.validate(definition, { xs: kind.make(1) });
    if (!unusable.valid && unusable.errorMessage.includes('cannot be used')) throw new Error(`${kind.name}: ${unusable.errorMessage}`);
    // the same params under `xs: {}`: what reading, copying and walking the body costs whatever its checks
    const bare = createParamsValidator();
    const bareTool = tool({ ...kind, xs: {}, root: {} });
    const times: number[] = [];
    const bareTimes: number[] = [];
    for (let run = 0; run < runs; run++) {
      const params = { xs: kind.make(n) };
      times.push(cpuMs(() => validator.validate(definition, params)));
      bareTimes.push(cpuMs(() => bare.validate(bareTool, params)));
    }
    const ms = median(times);
    const body = median(bareTimes);
    rows.push({ name: kind.name, units, bytes, ms, body, max: Math.max(...times), ns: (Math.max(ms - body, 0) * 1e6) / units, refused });
  }
  const middle = median(rows.map((row) => row.ns));
  console.log(`load ${loadAverage()} · ${runs} runs a kind · budget ${MAX_PARAMS_WORK.toLocaleString('en-US')} units`);
  console.log(['kind', 'units', 'body KB', 'CPU ms (median)', 'max', 'the body under {}', 'ns/unit (less the body)', '× median'].join(' | '));
  for (const row of rows) {
    console.log([row.name + (row.refused ? ' (refused)' : ''), row.units.toLocaleString('en-US'), (row.bytes / 1024).toFixed(0), row.ms.toFixed(1), row.max.toFixed(1), row.body.toFixed(1), row.ns.toFixed(1), (row.ns / middle).toFixed(2)].join(' | '));
  }
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

main();
