import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument, stringify, type DocumentOptions, type ToStringOptions } from 'yaml';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { parseYamlFast } from '../../src/scanner/yaml-fast.js';
import { YamlLocator } from '../../src/scanner/yaml-locator.js';
import { makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// The fast reader (src/scanner/yaml-fast.ts) against `yaml` itself: whenever it returns a value, `yaml` accepts
// the same text without an error and gives the same value, and each offset it notes is where `yaml` locates that
// key's value; and a definition read with it is the very definition (and the very diagnostics) read without it.

/** What `yaml` makes of a text, as the scanner reads it. */
function positioned(text: string): { ok: boolean; value?: unknown; locator: YamlLocator } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locator = new YamlLocator(document, lineCounter);
  if (document.errors.length) return { ok: false, locator };
  try {
    return { ok: true, value: document.toJS({ maxAliasCount: 100 }), locator };
  } catch {
    return { ok: false, locator };
  }
}

/** The fast reader's answer, if any, agrees with `yaml`'s; true when it answered. */
function expectAgrees(text: string): boolean {
  const fast = parseYamlFast(text);
  if (!fast) return false;
  const slow = positioned(text);
  expect(slow.ok, `yaml refuses what the fast reader read:\n${text}`).toBe(true);
  expect(canonical(fast.value), text).toBe(canonical(slow.value));
  for (const [key, offset] of fast.offsets) {
    expect(slow.locator.at(offset), text).toEqual(slow.locator.locate([key]));
  }
  return true;
}

/**
 * JSON with the numbers JSON cannot write (NaN, ±Infinity, -0) and `undefined` spelled out, keys in their order
 * (`toStrictEqual` compares `constructor` properties, which a key named `constructor` makes differ).
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === undefined) return '#undefined';
    if (typeof item === 'number' && (!Number.isFinite(item) || Object.is(item, -0))) return `#number:${Object.is(item, -0) ? '-0' : String(item)}`;
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.getPrototypeOf(item) !== Object.prototype) return `#prototype:${String(item)}`;
    return item;
  });
}

const PATH = 'tools/demo/TOOL.hdlp';

/** The definition and diagnostics with the fast reader and without it are the same. */
function expectSameDefinition(text: string): void {
  const file = { path: PATH, folder: 'demo', oid: 'oid', content: Buffer.from(text, 'utf8') };
  expect(canonical(parseToolDefinition(file)), text).toBe(canonical(parseToolDefinition(file, { fastYaml: false })));
}

const key = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), weight: 6 },
  fc.constantFrom('true', 'null', '1', '0x1f', 'a.b', 'a-b', '__proto__', 'constructor', 'a b', 'a:b', '$x', '-x', 'ключ', '名'),
);
const scalar = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9 .,/{}()-]{0,20}$/), weight: 8 },
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', ' ', 'a: b', 'a #b', 'a#b', '- x', '-x', '--flag', '?x', ':x', 'x:', 'null', '~', 'True', 'FALSE', '0o17', '0x1F', '+12', '-0', '1e3', '.5', '1.50', '.inf', '-.Inf', '.NaN', '2026-05-31', '1_000', 'yes', 'on', '"q"', "'q'", '[a]', '{a}', 'a, b', 'a\\nb', 'tab\there', 'multi\nline', 'trail ', ' lead', '#', '&a', '*a', '!t', '%d', '@x', '`x'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('node'), { maxLength: 4 }),
  map: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
})).node;
const stringifyOptions = fc.record({
  flowLevel: fc.constantFrom(undefined, 0, 1, 2),
  defaultKeyType: fc.constantFrom(null, 'PLAIN'),
  defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'),
  indent: fc.constantFrom(2, 3, 4),
  indentSeq: fc.boolean(),
  lineWidth: fc.constantFrom(0, 20, 80),
});

// lines and pieces a hand-written definition holds, right or wrong
const fragment = fc.oneof(
  fc.constantFrom(
    '# a comment', '', '   ', 'why: |', 'why: >', 'why: |-', 'why: >-', 'why: |+', 'why: |2', '  first line', '    more indented', '  second line', '',
    'examples:', '  - one', '  - "two: 2"', "  - 'it''s'", '- at the key\'s column', '  - k: v', '    k2: v2', '  -', '    nested: 1',
    'params_schema:', '  q: { type: string, required: true, description: "the \\"query\\"" }', '  n: {type: integer, minimum: 1}',
    'aliases: [a, b, ]', 'aliases: [a,, b]', 'aliases: []', 'aliases: [a: b]', 'aliases: ["x": y]', 'display: "\\u00e9\\x41\\t"', 'display: "\\N"',
    'intent: text # comment', 'intent: text#hash', 'intent: a: b', 'intent: ends:', '  continued', 'intent:', '  on the next line',
    'name: &anchor demo', 'name: *anchor', 'name: !!str demo', '---', '...', '%YAML 1.2', '? complex', ': value', 'name: demo', 'name: "demo"',
    'constraints:', '  timeout_ms: 1000', '  max_timeout_ms: 10', ' timeout_ms: 5', 'executor: hlpd-api', 'sandbox: { network: false }',
    'shell: { argv: [ls, "{path}"] }', 'x: [a, [b, {c: d}]]', 'x: {a: [1, 2], b: {}}', 'x: [a] tail', 'x: "a" tail', 'x: "open', "x: 'open",
    'x: [open', 'x: {a: }', 'x: {a: 1, a: 2}', 'x: 1', 'x: 2', 'key : spaced', 'x:  two spaces', 'x:\ttab', '\tx: 1', 'x: a\r', 'x: \u2028',
    'x: |\n  a\n\n  b\n', 'x: >\n  a\n  b\n\n  c\n', 'x: >\n\n  a\n', 'x: |\n\n  a\n', 'x: |\n  a\n    b\n', 'x: >\n  a\n    b\n', 'x: |\n  a\n   \n  b',
  ),
  fc.string({ maxLength: 20 }),
  fc.stringMatching(/^[ a-z:#\-[\]{},"'|>\\\n]{0,24}$/),
);

// thousands of runs each, ~2-7 s on a loaded machine: the default 60 s was passed under nice at load ~20
const PROPERTY_TIMEOUT_MS = 240_000;

describe('the fast YAML reader', () => {
  it('reads what yaml.stringify writes exactly as yaml reads it, or gives it up', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 }), stringifyOptions, (document, options) => {
        const text = stringify(document, options as ToStringOptions & DocumentOptions);
        if (expectAgrees(text)) answered++;
      }),
      { numRuns: runs(1500) },
    );
    // the subset is the common case, not a corner of it
    expect(answered).toBeGreaterThan(150);
  }, PROPERTY_TIMEOUT_MS);

  it('agrees with yaml on definitions with hand-written lines put anywhere, or gives them up', () => {
    const lines = makeToolYaml('demo', { params_schema: '\n  q: { type: string, required: true }', aliases: '[d1, d2]', examples: '\n  - run demo' }).split('\n');
    let answered = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(lines.length), fragment, fc.boolean()), { minLength: 1, maxLength: 3 }), (edits) => {
        const edited = [...lines];
        for (const [at, piece, replace] of edits) edited.splice(Math.min(at, edited.length), replace ? 1 : 0, piece);
        const text = edited.join('\n');
        if (expectAgrees(text)) answered++;
        expectSameDefinition(text);
      }),
      { numRuns: runs(1500) },
    );
    expect(answered).toBeGreaterThan(50);
  }, PROPERTY_TIMEOUT_MS);

  it('agrees with yaml on short texts of YAML punctuation', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ a-c1:#\-[\]{},"'|>\\.\n]{0,40}$/), (text) => {
        expectAgrees(text);
        expectSameDefinition(text);
      }),
      { numRuns: runs(3000) },
    );
  }, PROPERTY_TIMEOUT_MS);

  it('reads the generated and starter-style definitions itself (the fast path is the one taken)', () => {
    const text = makeToolYaml('demo', {
      params_schema: '\n  q: { type: string, required: true, description: "what to find" }\n  n: { type: integer, default: 5 }',
      aliases: '[d1, "d 2"]',
      examples: '\n  - find q\n  - "find: q"',
      why: '|\n  a first line\n  a second\n',
      constraints: '\n  timeout_ms: 1000\n  require_confirm: false',
    });
    expect(expectAgrees(text)).toBe(true);
    expectSameDefinition(text);
  });
});
