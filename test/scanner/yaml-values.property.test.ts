import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Document, isCollection, isScalar, parseAllDocuments, parseDocument, Scalar, visit, type ToStringOptions } from 'yaml';
import { readYamlMapping } from '../../src/scanner/yaml-mapping.js';
import { lexedErrors, lexedNodes, lexedPast, lexedValues } from '../../src/scanner/yaml-nesting.js';
import { runs } from '../helpers/property-runs.js';

// Review Z18, Z18-3: a definition's values are counted from yaml's lexer before yaml builds its document, so that a
// text of more than 100,000 values is refused without paying for that document. The count must be the document's own
// (the one the limit measures on what yaml built) wherever keys are texts and no alias is used, so that the limit and
// its message do not move; with aliases it counts each once, at most what the document expands them to.

/**
 * What the limit measures on a document read: the document itself, each sequence entry and each mapping value; with
 * `seen`, an object met again (an alias) is one value.
 */
function documentValues(value: unknown, seen?: Set<object>): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    count += 1;
    if (next === null || typeof next !== 'object' || seen?.has(next)) continue;
    seen?.add(next);
    stack.push(...Object.values(next));
  }
  return count;
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', '- x', '? k', 'a: b', '[a, b]', '{a}', '#', ' \n', 'x\n- y', '  - ', ':', '-', '?', ',', '*a', '&b', '!t', '"', "'", '|', '>'),
);
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true }), fc.constant(null), fc.boolean());
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
})).value;

const styles = fc.record({
  flows: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  scalarStyles: fc.array(fc.constantFrom(undefined, 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'), { minLength: 1, maxLength: 8 }),
  options: fc.record({
    indent: fc.integer({ min: 1, max: 5 }),
    indentSeq: fc.boolean(),
    lineWidth: fc.constantFrom(0, 8, 20, 80),
    minContentWidth: fc.constantFrom(0, 4, 20),
    nullStr: fc.constantFrom('null', '', '~'),
    flowCollectionPadding: fc.boolean(),
  }),
});

/** `value` written as YAML, each collection in flow or block style and each scalar in a style as the lists say. */
function written(root: unknown, { flows, scalarStyles, options }: { flows: boolean[]; scalarStyles: Array<Scalar.Type | undefined>; options: ToStringOptions }): string {
  const document = new Document(root);
  let collections = 0;
  let scalars = 0;
  visit(document, (_key, node) => {
    if (isCollection(node)) node.flow = flows[collections++ % flows.length] ?? false;
    else if (node instanceof Scalar) node.type = scalarStyles[scalars++ % scalarStyles.length];
  });
  return document.toString(options);
}

// what people write that yaml does not: empty values (`a:`, `- `, `{x}`), `?` keys with or without their `:`, a pair
// as a flow sequence's entry, trailing commas, comments, tags and anchors, JSON's `"k":v`
type Written = { scalar: string } | { list: Written[]; flow: boolean; trailing: boolean } | { map: Array<{ value: Written | null; form: number }>; flow: boolean; trailing: boolean };

const plain = fc.constantFrom('a', '1', '~', 'null', "''", '""', '"x: y"', "'it''s'", '"a\\nb"', '"two\n  lines"', '!!str 5', '&x v', '!t w', 'a b', 'a # c', 'http://x', '-1', 'x"', 'q');
const writtenValue = fc.letrec<{ value: Written; list: Written; map: Written }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, plain.map((scalar) => ({ scalar })), tie('list'), tie('map')),
  list: fc.record({ list: fc.array(tie('value'), { maxLength: 4 }), flow: fc.boolean(), trailing: fc.boolean() }),
  map: fc.record({
    map: fc.array(fc.record({ value: fc.option(tie('value'), { nil: null }), form: fc.integer({ min: 0, max: 3 }) }), { maxLength: 4 }),
    flow: fc.boolean(),
    trailing: fc.boolean(),
  }),
})).value;

/** `node` as YAML text at `indent` columns, its first line to follow what is already written on the line. */
function render(node: Written | null, indent: number, inFlow: boolean): string {
  if (node === null) return '';
  if ('scalar' in node) return inFlow && node.scalar.includes('#') ? 'b' : node.scalar;
  const pad = ' '.repeat(indent);
  if ('list' in node) {
    if (node.flow || inFlow || node.list.length === 0) {
      // an entry of a flow sequence may be a pair (`[a: b]`) or a `?` key (`[? a]`)
      const entries = node.list.map((item, at) => (at % 3 === 2 ? `k${at}: ${render(item, indent, true)}` : render(item, indent, true) || '~'));
      return `[${entries.join(', ')}${node.trailing && entries.length > 0 ? ',' : ''}]`;
    }
    return node.list.map((item) => (item !== null && !('scalar' in item) && !item.flow && ('list' in item ? item.list : item.map).length > 0 ? `-\n${pad}  ${render(item, indent + 2, false)}` : `- ${render(item, indent + 2, false)}`)).join(`\n${pad}`) || '[]';
  }
  if (node.flow || inFlow || node.map.length === 0) {
    const pairs = node.map.map(({ value, form }, at) => (form === 0 && value === null ? `k${at}` : form === 1 ? `? k${at}${value === null ? '' : ` : ${render(value, indent, true)}`}` : form === 2 ? `"k${at}":${render(value, indent, true) || '~'}` : `k${at}: ${render(value, indent, true)}`));
    return `{${pairs.join(', ')}${node.trailing && pairs.length > 0 ? ',' : ''}}`;
  }
  const block = (value: Written | null): boolean => value !== null && !('scalar' in value) && !value.flow && ('list' in value ? value.list : value.map).length > 0;
  return node.map
    .map(({ value, form }, at) => {
      const inner = block(value) ? `\n${pad}  ${render(value, indent + 2, false)}` : ` ${render(value, indent + 2, false)}`;
      if (form === 1) return value === null ? `? k${at}` : `? k${at}\n${pad}:${inner}`;
      if (form === 2) return `k${at}: # a comment\n${pad}  ${render(value, indent + 2, false) || '# none'}`;
      return `k${at}:${inner}`;
    })
    .join(`\n${pad}`);
}

/** The value of a text yaml reads without a word, no key of a mapping the same as another once read (a text may not read back as written). */
function readable(text: string): { value: unknown } | undefined {
  const document = parseDocument(text, { uniqueKeys: false });
  if (document.errors.length > 0 || document.warnings.length > 0) return undefined;
  let twice = false;
  visit(document, {
    Map(_key, map) {
      const keys = map.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value ?? '') : pair.key === null ? '' : pair.key));
      twice ||= new Set(keys).size < keys.length;
    },
  });
  return twice ? undefined : { value: document.toJS() };
}

const FILE = { path: 'tools/many/TOOL.hdlp', folder: 'many', oid: 'oid', content: new Uint8Array() };
const TOO_MANY = 'YAML holds more than 100000 values once its aliases are expanded; use anchors less, or write less';

describe('the values counted before yaml builds a definition (review Z18, Z18-3)', () => {
  it.each([
    // the fast reader's measure (up to 256 KiB) or the lexer's count: the same line
    ['220 KB on one line', `name: many\naliases: [${Array(110_000).fill('a').join(',')}]\n`, 2],
    // the document, `name`, `aliases` and 99,998 entries are 100,000 values
    ['a block list of 100,010 entries', `name: many\naliases:\n${'  - a\n'.repeat(100_010)}`, 100_000],
    ['mappings of empty values', `name: many\nx:\n${Array.from({ length: 34_000 }, (_, at) => `  k${at}: {a, b}\n`).join('')}`, 33_335],
  ])('refuses %s at the line its values go past 100,000, whichever reader', (_shape, text, line) => {
    for (const fastYaml of [true, false]) {
      const read = readYamlMapping(FILE, text, 'TOOL.hdlp', 'name', { fastYaml });
      expect(read.ok ? [] : read.diagnostics).toEqual([{ file: FILE.path, line, column: 1, severity: 'error', code: 'YAML_RESOURCE_LIMIT', message: TOO_MANY }]);
    }
  });

  it('leaves an alias bomb to the bound on aliases, and its message', () => {
    const bomb = ['name: many', 'a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 9 }, (_, at) => `${String.fromCharCode(98 + at)}: &${String.fromCharCode(98 + at)} [${Array(10).fill(`*${String.fromCharCode(97 + at)}`).join(', ')}]`), ''].join('\n');
    expect(lexedPast(bomb)).toBeUndefined();
    const read = readYamlMapping(FILE, bomb, 'TOOL.hdlp', 'name');
    expect(read.ok ? [] : read.diagnostics.map(({ code, message }) => ({ code, message }))).toEqual([{ code: 'YAML_RESOURCE_LIMIT', message: expect.stringContaining('alias bomb') }]);
  });

  it('are the document\'s own, for any document yaml writes with text keys and no alias', () => {
    fc.assert(
      fc.property(value, styles, (root, style) => {
        const yaml = written(root, style);
        const read = readable(yaml);
        fc.pre(read !== undefined && isDeepStrictEqual(read.value, root));
        const values = documentValues(read!.value);
        expect(lexedValues(yaml), yaml).toBe(values);
        // the nodes written as text are each a key or a value, so within the bound the values set (review Z20, Z20-9)
        expect(lexedNodes(yaml).nodes, yaml).toBeLessThanOrEqual(2 * values + 1);
        // no line or mark of it counted as one yaml can read only as an error (review Z20, Z20-9)
        expect(lexedErrors(yaml).errors, yaml).toBe(0);
        // and refused past as many as it holds, not before
        expect(lexedPast(yaml, Infinity, values), yaml).toBeUndefined();
        expect(lexedPast(yaml, Infinity, values - 1)?.past, yaml).toBe('values');
      }),
      { numRuns: runs(300) },
    );
  });

  it('are the document\'s own for what people write that yaml does not, empty values and `?` keys among it', () => {
    fc.assert(
      fc.property(writtenValue, (root) => {
        const yaml = `${render(root, 0, false)}\n`;
        const read = readable(yaml);
        fc.pre(read !== undefined);
        expect(lexedValues(yaml), yaml).toBe(documentValues(read!.value));
        expect(lexedNodes(yaml).nodes, yaml).toBeLessThanOrEqual(2 * documentValues(read!.value) + 1);
        expect(lexedErrors(yaml).errors, yaml).toBe(0);
      }),
      { numRuns: runs(500) },
    );
  });

  it('count an alias once, where the document holds its anchor\'s values each time', () => {
    fc.assert(
      fc.property(value, fc.array(text, { minLength: 1, maxLength: 4 }), styles, (shared, keys, style) => {
        // yaml writes an object met twice as an anchor and aliases of it
        const root = { one: shared, more: keys.map((key) => ({ [key]: shared })) };
        const yaml = written(root, style);
        const read = readable(yaml);
        fc.pre(read !== undefined && isDeepStrictEqual(read.value, root));
        const lexed = lexedValues(yaml);
        expect(lexed, yaml).toBeLessThanOrEqual(documentValues(read!.value));
        // every value is counted but those an alias stands for (yaml's value of an alias is its anchor's very object)
        expect(lexed, yaml).toBe(documentValues(read!.value, new Set()));
        // the aliases are yaml's own (review Z20, Z20-2), and the nodes within the bound the values set
        let aliases = 0;
        visit(parseDocument(yaml), { Alias: () => void (aliases += 1) });
        expect(lexedNodes(yaml), yaml).toEqual({ aliases, nodes: expect.any(Number) });
        expect(lexedNodes(yaml).nodes, yaml).toBeLessThanOrEqual(2 * lexed + 1);
        expect(lexedErrors(yaml).errors, yaml).toBe(0);
      }),
      { numRuns: runs(200) },
    );
  });
});

// Review Z20, Z20-9: 200,000 lines of a bare word are within the bound on nodes (2N + 1), and each costs yaml a node and
// an error (~30 s). The lexer counts the lines and marks yaml can read only as errors and refuses past 100; it must
// count none where yaml reads a text without a word, however odd the text (yaml reads `? "a"` and then lines of ` ]`
// as the key `a`), so lines are drawn from what people write, and from what they get wrong.
const LINES = ['a', 'a:', 'a: b', 'x y: z', 'k: v w', 'k: v # c', '- a', '-', '- - a', '- k: v', '- "a"', '- ? a', '- |', '- >', '- &a', '- !t', '- ]', '- [a]: b', '-1', '- -1',
  '? a', '?', '? "a"', '? [a]', '? {a: b}', '? |', '? &a', '? !t', '? - a', ':', ': b', ': |', ': &a', ': - b', '&a', '!t', '*a', '&a x', '&a k: v', '&a [x]', '&a &b x', '!t !u x', '!!str a',
  '*a : b', '"k": v', "'k': v",
  // in flow collections (review Z21, Z21-3)
  '[a,,b]', '[,]', '{,}', '[a, ]', '{a, b,}', '["a" "b"]', '[[] []]', '[*a *b]', '[&a &b x]', '[!t !u x]', '[&a !t x, !t &b y]', '[: : x]', '{? ? a}', '{? a : b}', '[? a : b]', '[a: b: c]',
  '{"a":1}', '[a: , b]', '[&a , b]', '[a #c', ', b]', '%TAG ! tag:x,2026:', '"q"', "'q'", '"a', 'b"', '"', "'", '[]', '{}', '[a,', 'b]', '[a, b', ']', '}', ']: v', ',', '@', '`a', '|', '>-', '|-', '#', '# c', '', '---', '...', '%YAML 1.2',
  'k: "a" b', "k: 'a' b", 'k: [a] b', 'k: |', 'k: >', 'k: |2', 'k: &a', 'k: !t', 'k: *a', 'k: &a [x]', 'k: {a: b}', '[a]: b', '{a: 1}: 2', 'a: b: c', 'k:\t v', '\tb'];
const lines = fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.constantFrom(...LINES)), { maxLength: 10 });

describe('the lines and marks yaml can read only as errors, counted before it builds a definition (review Z20, Z20-9)', () => {
  it('are counted only in a text yaml reports errors in', () => {
    fc.assert(
      fc.property(lines, fc.constantFrom('\n', '\r\n'), (drawn, newline) => {
        const yaml = drawn.map(([indent, line]) => ' '.repeat(indent) + line).join(newline) + newline;
        if (lexedErrors(yaml).errors === 0) return;
        // yaml reads the first document and stops at the second, reporting it; an error in either is one
        const reported = parseAllDocuments(yaml, { uniqueKeys: false }) as Document[];
        expect(reported.some((document) => document.errors.length > 0), yaml).toBe(true);
      }),
      { numRuns: runs(2000) },
    );
  });

  it.each([
    ['a bare word, a key without its value', 'a', 2],
    ['a quoted word', "'b'", 2],
    ['an alias', '*b', 2],
    ['a stray `]`', ']', 2],
    // the first is the mapping's anchor
    ['an anchor alone', '&a', 3],
    ['a node after a complete one', 'k: "a" b', 2],
  ])('refuse 200,000 lines of %s at the first of them, before yaml builds them', (_shape, line, first) => {
    const text = `name: many\n${`${line}\n`.repeat(199_999)}`;
    expect(lexedPast(text)).toEqual({ line: first, past: 'errors' });
    for (const fastYaml of [true, false]) {
      const read = readYamlMapping(FILE, text, 'TOOL.hdlp', 'name', { fastYaml });
      expect(read.ok ? [] : read.diagnostics.map(({ line, code, message }) => ({ line, code, message }))).toEqual([{ line: first, code: 'YAML_RESOURCE_LIMIT', message: expect.stringContaining('more than 100 lines or marks that are no key, value or entry') }]);
    }
  });

  it('refuse 200,000 empty entries of a flow list at its line, and 200 directive lines at the 101st (review Z21, Z21-2, Z21-3)', () => {
    for (const [text, line, past] of [[`name: many\nexamples: [${','.repeat(200_000)}]\n`, 2, 'errors'], [`${'%X\n'.repeat(200)}---\nname: many\n`, 101, 'directives']] as const) {
      expect(lexedPast(text)).toEqual({ line, past });
      const read = readYamlMapping(FILE, text, 'TOOL.hdlp', 'name');
      expect(read.ok ? [] : read.diagnostics.map(({ line, code }) => ({ line, code }))).toEqual([{ line, code: 'YAML_RESOURCE_LIMIT' }]);
    }
    // a definition needs a directive or two; each costs yaml only a warning
    expect(lexedPast(`%YAML 1.2\n%TAG ! tag:x,2026:\n---\nname: many\n`)).toBeUndefined();
  });

  it('leave 100 of them to yaml, which reports its own errors', () => {
    const text = `name: many\n${'a\n'.repeat(100)}`;
    expect(lexedErrors(text)).toEqual({ errors: 100, first: 2 });
    expect(lexedPast(text)).toBeUndefined();
    const read = readYamlMapping(FILE, text, 'TOOL.hdlp', 'name');
    expect(read.ok ? [] : read.diagnostics.map(({ code }) => code)).not.toContain('YAML_RESOURCE_LIMIT');
  });
});
