import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Document, isCollection, visit } from 'yaml';
import { MAX_DEFINITION_DEPTH, parseToolDefinition } from '../../src/scanner/index.js';
import { readYamlMapping } from '../../src/scanner/yaml-mapping.js';
import { nestedPast, PRECHECKED_DEPTH } from '../../src/scanner/yaml-nesting.js';
import { runs } from '../helpers/property-runs.js';

// Review Z15-3: a definition's nesting is counted from yaml's lexer before yaml builds the document, and a text past
// PRECHECKED_DEPTH is refused there. The count must never refuse what the depth limit (64) accepts, and whatever is
// deeper than the limit is refused with the one message, by the count or by the measure of yaml's document.

const FILE = { path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'oid', content: new Uint8Array() };
const TOO_DEEP = `YAML nested more than ${MAX_DEFINITION_DEPTH} levels deep; flatten it`;

// scalars a count could mistake for structure: indicators, brackets and quotes inside texts, several lines, comments
const scalar = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.constantFrom('- - -', '[[[', '{{{ [', "don't [", '"[', "'{", 'a: - b', '? x', '# - [', '|\n  - - -', 'x\n- - [\n  {', '  - ', ':', '-'),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
);

/** A chain of `kinds.length` collections (true: a mapping), each with its siblings, ending in `leaf`; `key` names each mapping's way on. */
function chain(kinds: boolean[], siblings: unknown[][], keys: string[], leaf: unknown): unknown {
  let value = leaf;
  for (let level = kinds.length - 1; level >= 0; level -= 1) {
    const others = siblings[level % siblings.length] ?? [];
    if (kinds[level]) value = Object.fromEntries([...others.map((other, at) => [`s${at}`, other]), [keys[level % keys.length] || 'k', value]]);
    else value = [...others, value];
  }
  return value;
}

/** `value` under `x:` in a definition's text, each collection in flow style where `flows` says, the rest in block style. */
function written(value: unknown, flows: boolean[], indent: number, indentSeq: boolean): string {
  const document = new Document({ x: value });
  let at = 0;
  visit(document, (_key, node) => {
    if (isCollection(node)) node.flow = flows[at++ % flows.length] ?? false;
  });
  return document.toString({ indent, indentSeq, lineWidth: 0 });
}

const shaped = (levels: fc.Arbitrary<number>) =>
  fc.record({
    kinds: levels.chain((count) => fc.array(fc.boolean(), { minLength: count, maxLength: count })),
    siblings: fc.array(fc.array(scalar, { maxLength: 3 }), { minLength: 1, maxLength: 5 }),
    keys: fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('- k', '[k', "'k", 'k: v', '? k')), { minLength: 1, maxLength: 4 }),
    flows: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
    indent: fc.integer({ min: 1, max: 6 }),
    indentSeq: fc.boolean(),
    leaf: scalar,
  });

describe('the nesting counted before yaml parses a definition (review Z15-3)', () => {
  it('never refuses a definition within the depth limit, and counts it no deeper than the limit', () => {
    // the mapping at the top, the chain, and its scalar at the end: at most 64 levels
    fc.assert(
      fc.property(shaped(fc.integer({ min: 0, max: MAX_DEFINITION_DEPTH - 2 })), ({ kinds, siblings, keys, flows, indent, indentSeq, leaf }) => {
        const text = written(chain(kinds, siblings, keys, leaf), flows, indent, indentSeq);
        expect(nestedPast(text, MAX_DEFINITION_DEPTH), text).toBeUndefined();
        for (const fastYaml of [true, false]) {
          const read = readYamlMapping(FILE, text, 'TOOL.hdlp', 'name', { fastYaml });
          expect(read.ok ? [] : read.diagnostics, text).toEqual([]);
        }
      }),
      { numRuns: runs(200) },
    );
  });

  it('refuses whatever nests deeper than the limit with the one message, counted or measured', () => {
    fc.assert(
      fc.property(shaped(fc.integer({ min: MAX_DEFINITION_DEPTH - 1, max: 400 })), ({ kinds, siblings, keys, flows, indent, indentSeq, leaf }) => {
        const text = written(chain(kinds, siblings, keys, leaf), flows, indent, indentSeq);
        for (const fastYaml of [true, false]) {
          const read = readYamlMapping(FILE, text, 'TOOL.hdlp', 'name', { fastYaml });
          expect(read.ok ? [] : read.diagnostics.map(({ code, message }) => ({ code, message })), text.slice(0, 300)).toEqual([{ code: 'YAML_RESOURCE_LIMIT', message: TOO_DEEP }]);
        }
      }),
      { numRuns: runs(60) },
    );
  });

  it.each([
    ['`- ` on one line', (levels: number) => `x:\n  ${'- '.repeat(levels)}1\n`],
    ['flow sequences', (levels: number) => `x: ${'['.repeat(levels)}${']'.repeat(levels)}\n`],
    ['flow mappings', (levels: number) => `x: ${'{a: '.repeat(levels)}1${'}'.repeat(levels)}\n`],
    ['indented keys', (levels: number) => Array.from({ length: levels }, (_, level) => `${' '.repeat(level)}k:`).join('\n') + ' 1\n'],
    ['indented sequences', (levels: number) => Array.from({ length: levels }, (_, level) => `${' '.repeat(level)}-`).join('\n') + ' 1\n'],
  ])('counts runaway nesting of %s at the line it goes past the count, and refuses it with the one message', (_shape, text) => {
    const deep = text(PRECHECKED_DEPTH + 5);
    const line = nestedPast(deep);
    expect(line).toBeGreaterThanOrEqual(1);
    expect(line).toBeLessThanOrEqual(PRECHECKED_DEPTH + 2);
    expect(nestedPast(text(PRECHECKED_DEPTH - 5))).toBeUndefined();
    const read = readYamlMapping(FILE, deep, 'TOOL.hdlp', 'name');
    expect(read.ok ? [] : read.diagnostics).toEqual([expect.objectContaining({ code: 'YAML_RESOURCE_LIMIT', message: TOO_DEEP, line })]);
  });

  it('refuses 1 MB of `- - - …` (500,000 levels) in a fraction of the CPU yaml took to build it', () => {
    const content = Buffer.from(`name: deep\nx:\n  ${'- '.repeat(500_000)}1\n`);
    const start = process.cpuUsage();
    const parsed = parseToolDefinition({ path: 'tools/deep/TOOL.hdlp', folder: 'deep', oid: 'oid', content });
    const used = process.cpuUsage(start);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: 'YAML_RESOURCE_LIMIT', message: TOO_DEEP, line: 3, column: 1 })]);
    // CPU, not wall time: yaml alone took 6.9 s of it (and 0.9 GB); the count stops a thousand levels in
    expect((used.user + used.system) / 1000).toBeLessThan(2_000);
  });
});
