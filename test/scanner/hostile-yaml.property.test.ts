import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hiddenCharacters } from '../../src/core/index.js';
import { parseToolDefinition, type ParsedDefinition } from '../../src/scanner/index.js';
import { makeToolYaml } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// Property-based tests of the parser against generated and hostile YAML: whatever a file holds, the parser
// returns a definition or diagnostics (it never throws), each diagnostic points into the file, and the work
// stays bounded. Runs are counted so that the whole file takes a few seconds.

const PATH = 'tools/demo/TOOL.hdlp';
// generous: a linear parse of a 1 MiB file takes well under a second of CPU; an exponential one never ends. CPU time,
// not wall time: a 10,000-deep nesting parsed in ~0.1 s of CPU took 13.8 s of wall time on a loaded 2-core host
const CPU_BOUND_MS = 10_000;

function parseBytes(content: Uint8Array): { parsed: ParsedDefinition; ms: number } {
  const start = process.cpuUsage();
  const parsed = parseToolDefinition({ path: PATH, folder: 'demo', oid: 'oid', content });
  const used = process.cpuUsage(start);
  return { parsed, ms: (used.user + used.system) / 1000 };
}

/** The invariant every parse keeps, whatever it was given. */
function expectWellFormed(content: Uint8Array): ParsedDefinition {
  let result: { parsed: ParsedDefinition; ms: number } | undefined;
  expect(() => (result = parseBytes(content))).not.toThrow();
  const { parsed, ms } = result!;
  expect(ms).toBeLessThan(CPU_BOUND_MS);
  const errors = parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  // a definition, or at least one error saying why not: never neither
  expect(parsed.tool === null ? errors.length > 0 : errors.length === 0).toBe(true);
  const lines = Buffer.from(content).toString('utf8').split('\n').length;
  for (const diagnostic of parsed.diagnostics) {
    expect(diagnostic.file).toBe(PATH);
    expect(diagnostic.line).toBeGreaterThanOrEqual(1);
    expect(diagnostic.line).toBeLessThanOrEqual(lines + 1);
    expect(diagnostic.column).toBeGreaterThanOrEqual(1);
    expect(diagnostic.message.length).toBeGreaterThan(0);
  }
  // the answer is bounded by the input, not by what aliases could expand it to
  expect(JSON.stringify(parsed).length).toBeLessThan(20 * content.byteLength + 64 * 1024);
  return parsed;
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** `levels` anchors, each a list of `width` aliases of the one before: width^levels values when expanded. */
function aliasBomb(width: number, levels: number, at: 'top' | 'examples' | 'params'): string {
  const lines = [`${at === 'examples' ? 'examples' : 'b0'}: &e0 [${Array(width).fill('lol').join(', ')}]`];
  for (let level = 1; level <= levels; level++) lines.push(`b${level}: &e${level} [${Array(width).fill(`*e${level - 1}`).join(', ')}]`);
  const bomb = lines.join('\n');
  if (at === 'params') return makeToolYaml('demo', { params_schema: `\n  q: { type: string, default: *e${levels} }` }).replace(/^/, `${bomb}\n`);
  return `${makeToolYaml('demo')}${bomb}\n`;
}

const hostileFragment = fc.oneof(
  fc.constantFrom(
    '!!binary aGVsbG8=', '!!js/function "function () {}"', '!!python/object:os.system [id]', '!!set {a, b}', '!!omap [a: 1]',
    '!custom x', '!!str 1', '!!int "x"', '!!float .nan', '!!null ""', '!!timestamp 2001-12-14', '<<: {a: 1}', '<<: [*x]',
    '&x [1]', '*undefined', '? [a, b]\n: c', '__proto__: {polluted: true}', 'constructor: {prototype: {x: 1}}',
    '"\\u0000"', '"\\x00"', '\u0000', '\uFEFF', '\r\n', '\t', '%YAML 1.1\n---', '--- !!map', '...', '---\n---',
  ),
  fc.integer({ min: 1, max: 10_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1, max: 10_000 }).map((depth) => `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.integer({ min: 1, max: 3_000 }).map((depth) => Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}k:`).join('\n')),
  fc.integer({ min: 1, max: 300_000 }).map((length) => `x: ${'a'.repeat(length)}`),
  fc.string({ maxLength: 200 }),
);

describe('parseToolDefinition against hostile YAML (property-based)', () => {
  it('returns a definition or diagnostics for any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 2000 }), (text) => void expectWellFormed(utf8(text))), { numRuns: runs(300) });
  });

  it('returns diagnostics for any bytes, invalid UTF-8 and NUL included', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => void expectWellFormed(bytes)), { numRuns: runs(300) });
  });

  it('survives hostile fragments put anywhere in a valid definition, with a BOM or CRLF line ends', () => {
    const valid = makeToolYaml('demo').split('\n');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(valid.length), hostileFragment), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        (insertions, bom, crlf) => {
          const lines = [...valid];
          for (const [position, fragment] of insertions) lines.splice(position, 0, fragment);
          let text = lines.join(crlf ? '\r\n' : '\n');
          if (bom) text = `\uFEFF${text}`;
          expectWellFormed(utf8(text));
        },
      ),
      { numRuns: runs(150) },
    );
    // 150 definitions with fragments up to 300 KB or 10,000 levels deep: ~4 s of CPU, 36 s of wall at load 25 and
    // 214-245 s at load ~32 beside other suites on 2 cores; the bound on each parse is the parser's own (its CPU
    // time, above), not this timeout, which only guards against a hang
  }, propertyTimeout(600_000));

  it('refuses every alias bomb with YAML_RESOURCE_LIMIT at the first alias, whatever its shape', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 12 }), fc.integer({ min: 6, max: 12 }), fc.constantFrom('top', 'examples', 'params') as fc.Arbitrary<'top' | 'examples' | 'params'>, (width, levels, at) => {
        const parsed = expectWellFormed(utf8(aliasBomb(width, levels, at)));
        expect(parsed.tool).toBeNull();
        expect(parsed.diagnostics.map((diagnostic) => diagnostic.code)).toContain('YAML_RESOURCE_LIMIT');
      }),
      { numRuns: runs(40) },
    );
  });

  it('keeps every text value of a valid definition exactly as written, whatever its characters', () => {
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }).filter((value) => value.trim().length > 0);
    fc.assert(
      fc.property(text, text, text, fc.array(text, { maxLength: 4 }), (display, intent, why, examples) => {
        const definition = { name: 'demo', display, intent, method: 'exec', executor: 'gatekeeper', params_schema: {}, author: 'T-1', created: '2026-05-31', why, examples };
        const parsed = expectWellFormed(utf8(stringify(definition)));
        if (parsed.tool === null) {
          // only the schema's own rules may refuse it (a text the schema limits), and they say where; and INVISIBLE_TEXT,
          // where a value holds a character a reader cannot see (U+2028 is a grapheme fast-check makes, kept raw by stringify).
          // Warnings refuse nothing: NO_LATIN_TEXT comes with most generated texts (CI seed 38288134: "!" and "\u2028!")
          const hidden = [display, intent, why, ...examples].some((value) => hiddenCharacters(value).length > 0);
          const errors = parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
          expect(errors.every((diagnostic) => diagnostic.code === 'SCHEMA_VIOLATION' || (hidden && diagnostic.code === 'INVISIBLE_TEXT')), JSON.stringify(errors)).toBe(true);
          return;
        }
        expect(parsed.tool).toMatchObject({ display, intent, why, examples });
      }),
      { numRuns: runs(150) },
    );
  });
});

describe('parseToolDefinition on the hostile cases one by one', () => {
  it.each([
    ['an alias bomb within the alias count (9^10)', aliasBomb(9, 10, 'examples'), 'YAML_RESOURCE_LIMIT'],
    ['10,000-deep flow nesting', `${makeToolYaml('demo')}deep: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, 'YAML_RESOURCE_LIMIT'],
    ['100-deep block nesting', `${makeToolYaml('demo')}${Array.from({ length: 100 }, (_, level) => `${'  '.repeat(level)}k${level}:`).join('\n')} x\n`, 'YAML_RESOURCE_LIMIT'],
    ['a merge key', `${makeToolYaml('demo')}<<: {group: x}\n`, 'SCHEMA_VIOLATION'],
    ['a duplicate key', `${makeToolYaml('demo')}name: demo\n`, 'YAML_SYNTAX'],
    ['a NUL byte', `${makeToolYaml('demo')}group: a\u0000b\n`, 'SCHEMA_VIOLATION'],
    ['a __proto__ key', `${makeToolYaml('demo')}__proto__: {polluted: true}\n`, 'SCHEMA_VIOLATION'],
  ])('reports %s as a diagnostic', (_case, text, code) => {
    const parsed = expectWellFormed(utf8(text));
    expect(parsed.tool).toBeNull();
    expect(parsed.diagnostics.map((diagnostic) => diagnostic.code)).toContain(code);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['a BOM', `\uFEFF${makeToolYaml('demo')}`],
    ['CRLF line ends', makeToolYaml('demo').replaceAll('\n', '\r\n')],
    ['a !!str tag', makeToolYaml('demo', { group: '!!str 42' })],
  ])('reads a definition with %s', (_case, text) => {
    expect(expectWellFormed(utf8(text)).tool?.name).toBe('demo');
  });
});
