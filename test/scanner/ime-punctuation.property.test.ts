import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { runs } from '../helpers/property-runs.js';

// Review userZ10, U10-3: a full-width '：' after a key, a '，' or '、' between the items of [ … ], curly quotes around
// an item, typed by a Chinese input method into a valid definition, got the parser's raw errors (six for one comma,
// none naming it). Each is now exactly one error, at the character, naming it; in a text, the same characters are text.

const PATH = 'tools/demo/TOOL.hdlp';
const parse = (text: string) => parseToolDefinition({ path: PATH, folder: 'demo', oid: 'oid', content: Buffer.from(text, 'utf8') });
const errors = (text: string) => parse(text).diagnostics.filter((diagnostic) => diagnostic.severity === 'error');

// words YAML reads as text (not true, false, null), and Chinese text holding the characters an input method types
const word = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/).filter((text) => !['true', 'false', 'null', 'yes', 'no', 'on', 'off', 'y', 'n'].includes(text));
const chinese = fc.array(fc.constantFrom('统计', '行数', '单词', '字节', '，', '、', '：', '“', '”', '文件'), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''))
  .filter((text) => !/^[“‘]/.test(text));
// an argv item: a plain word, or a quoted one holding the parameter
const item = fc.oneof(word.map((text) => ({ text, quoted: false })), word.map((text) => ({ text: `"${text}-{a}"`, quoted: true })));

function definition(intent: string, argv: string[]): string[] {
  return [
    'name: demo', 'display: Demo', `intent: ${intent}`, 'method: run', 'executor: shell',
    'params_schema:', '  a: { type: string, required: true }', 'shell:', `  argv: [${argv.join(', ')}]`, 'author: TEST-001', 'created: 2026-05-31', 'why: tests need it',
  ];
}

describe('input-method punctuation in YAML structure (property-based)', () => {
  it("a full-width '：' after any top-level key is one error at it, naming the key", () => {
    fc.assert(
      fc.property(chinese, fc.array(word, { maxLength: 3 }), fc.nat(), (intent, words, pick) => {
        const lines = definition(intent, ['echo', ...words, '"{a}"']);
        const keys = lines.map((line, index) => ({ index, key: /^([a-z_]+):/.exec(line)?.[1] })).filter((line) => line.key !== undefined);
        const { index, key } = keys[pick % keys.length]!;
        lines[index] = lines[index]!.replace(':', '：');
        const found = errors(`${lines.join('\n')}\n`);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ line: index + 1, column: key!.length + 1, code: 'YAML_SYNTAX' });
        expect(found[0]!.message).toMatch(new RegExp(`^full-width colon '：' \\(U\\+FF1A\\) does not end a key in YAML, so line ${index + 1} is not read as '${key}: …'`));
      }),
      { numRuns: runs(200) },
    );
  });

  it("a '，' or '、' between argv items, before a quoted one, is one error at the first of them", () => {
    fc.assert(
      fc.property(chinese, fc.array(item, { minLength: 1, maxLength: 5 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), fc.constantFrom('，', '、'), (intent, items, typed, comma) => {
        const argv = [{ text: 'echo', quoted: false }, ...items];
        // the separators typed with the input method: at least one before a quoted item (before a plain one, YAML reads one text)
        const full = argv.map((_, at) => at > 0 && (typed[at - 1]! || argv[at]!.quoted));
        fc.pre(argv.some((next, at) => full[at] && next.quoted));
        const line = `  argv: [${argv.map((next, at) => `${at === 0 ? '' : full[at] ? `${comma} ` : ', '}${next.text}`).join('')}]`;
        const lines = definition(intent, []);
        lines[8] = line;
        const found = errors(`${lines.join('\n')}\n`);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ line: 9, column: line.indexOf(comma) + 1, code: 'YAML_SYNTAX' });
        expect(found[0]!.message).toContain(`'${comma}' (U+${comma.codePointAt(0)!.toString(16).toUpperCase()}) does not separate items in YAML`);
      }),
      { numRuns: runs(200) },
    );
  });

  it('curly quotes around an argv item holding a placeholder are one error at the opening quote', () => {
    fc.assert(
      fc.property(chinese, fc.array(word, { maxLength: 3 }), word, fc.array(word, { maxLength: 3 }), fc.constantFrom(['“', '”'], ['‘', '’']), (intent, before, inner, after, [open, close]) => {
        const lines = definition(intent, ['echo', ...before, `${open}${inner}-{a}${close}`, ...after]);
        const found = errors(`${lines.join('\n')}\n`);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ line: 9, column: lines[8]!.indexOf(open!) + 1, code: 'YAML_SYNTAX' });
        expect(found[0]!.message).toContain(`curly quote '${open}'`);
      }),
      { numRuns: runs(200) },
    );
  });

  it('in a value or a quoted item the same characters are text, read as written', () => {
    fc.assert(
      fc.property(chinese, chinese, (intent, text) => {
        const parsed = parse(`${definition(intent, ['echo', `"${text}-{a}"`]).join('\n')}\n`);
        expect(parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
        expect(parsed.tool?.intent).toBe(intent);
      }),
      { numRuns: runs(200) },
    );
  });
});
