import fc from 'fast-check';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { draftTools, yamlText } from '../../src/cli/mcp-drafts.js';
import { hiddenCharacters, INVISIBLE_CHARACTERS } from '../../src/core/index.js';
import { parseToolDefinition } from '../../src/scanner/parse-tool-definition.js';
import { runs } from '../helpers/property-runs.js';

// What a server's tools/list may hold: anything a hostile or careless server sends (names, titles, descriptions and
// annotation values with newlines, quotes, YAML syntax, comment marks, non-ASCII).
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('a\nrequire_confirm: false', '"\n# x\nwhy: pwned', '- x\n  y: z', '\u2028ok\r\nshell: {argv: [rm]}', ' ', '#'));
const hint = fc.option(fc.oneof(fc.boolean(), text), { nil: undefined });
const remoteTool: fc.Arbitrary<Tool> = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 60 }),
    title: text,
    description: text,
    annotations: fc.record({ readOnlyHint: hint, destructiveHint: hint, idempotentHint: hint, openWorldHint: hint, title: fc.option(text, { nil: undefined }), extra: hint }, { requiredKeys: [] }),
    inputSchema: fc.record({
      type: fc.constant('object' as const),
      properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.record({ type: fc.constant('string'), description: text }), { maxKeys: 4 }),
    }),
  },
  { requiredKeys: ['name', 'inputSchema'] },
) as fc.Arbitrary<Tool>;

// the draft's own keys, in this order; nothing from the server may add one
const DRAFT_KEYS = ['name', 'display', 'intent', 'method', 'executor', 'mcp', 'group', 'params_schema', 'constraints', 'author', 'created', 'why'];

describe('hldp import mcp drafts from whatever a server lists (property)', () => {
  it('keep the draft’s own structure: a legal, unique name, the remote name whole, confirmation as the annotations say, nothing injected', () => {
    fc.assert(
      fc.property(fc.uniqueArray(remoteTool, { minLength: 1, maxLength: 4, selector: (tool) => tool.name }), (tools) => {
        const drafts = draftTools('srv', tools, '2026-12-01');
        expect(new Set(drafts.map((draft) => draft.name)).size).toBe(tools.length);
        drafts.forEach((draft, index) => {
          const tool = tools[index]!;
          expect(draft.name).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
          const written = parse(draft.text) as Record<string, unknown>;
          expect(Object.keys(written)).toEqual(DRAFT_KEYS);
          const annotations = tool.annotations ?? {};
          const idempotent = annotations.readOnlyHint === true || annotations.idempotentHint === true;
          expect(written.mcp).toEqual({ server: 'srv', tool: tool.name, ...(idempotent ? { idempotent: true } : {}) });
          const confirm = !(annotations.readOnlyHint === true) && annotations.destructiveHint !== false;
          expect(written.constraints).toEqual({ require_confirm: confirm });
          expect(written.author).toBe('');
          expect(written.why).toBe('');
        });
      }),
      { numRuns: runs(300) },
    );
  });

  it('pass validate once author and why are filled in, whatever the server wrote, but for the characters it hid', () => {
    fc.assert(
      fc.property(remoteTool, (tool) => {
        const [draft] = draftTools('srv', [tool], '2026-12-01');
        const filled = draft!.text.replace(/^author: "".*$/m, 'author: ICE-GL-ZY001').replace(/^why: "".*$/m, 'why: agents need it');
        const parsed = parseToolDefinition({ path: `tools/${draft!.name}/TOOL.hdlp`, folder: draft!.name, oid: '0', content: Buffer.from(filled) });
        // a hidden character the server wrote is the one error left, and it keeps the tool out (review userX, X10)
        const errors = parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
        expect(errors.filter((diagnostic) => diagnostic.code !== 'INVISIBLE_TEXT')).toEqual([]);
        expect(parsed.tool === null).toBe(errors.length > 0);
        if (parsed.tool) expect(parsed.tool.mcp).toEqual({ server: 'srv', tool: tool.name, ...(tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true ? { idempotent: true } : {}) });
      }),
      { numRuns: runs(300) },
    );
  });
});

// Review userX, X10: what a person reviewing the draft does not see — controls, format characters (bidi, zero-width,
// tags), separators, lone surrogates, runs of variation selectors — mixed with what YAML quotes specially
const hiddenUnit = fc.constantFrom('\u202e', '\u2066', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u0085', '\u2028', '\u2029', '\u061c', '\u3164', '\x1b', '\r', '\t', '\x00', '\x7f', '\ufe0f', '\u{e0100}', '\u{e0041}', '\u{e007f}', '\ud800', '\udfff', '👨', 'م', 'a', ' ', '\n', '"', "'", '\\', '#', ':', '- ', '{', '&', '*', '!');
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: hiddenUnit, maxLength: 30 }), fc.string({ unit: fc.oneof(hiddenUnit, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 30 }));

describe('the draft writer and hidden characters (property, review userX, X10)', () => {
  it('writes any string so that it reads back the same, with no invisible character left as it is in the file', () => {
    fc.assert(
      fc.property(anyText, anyText, (value, key) => {
        fc.pre(key !== '__proto__');
        const tree = { value, list: [value, key], keys: Object.fromEntries([[key, value]]) };
        const { text } = yamlText(tree);
        expect(parse(text)).toEqual(tree);
        expect(text.match(INVISIBLE_CHARACTERS)).toBeNull();
        expect(hiddenCharacters(text)).toEqual([]);
      }),
      { numRuns: runs(500) },
    );
  });

  // CI of 407af9ec: fast-check's seed 67612574 found [" \n", ""] read back as "\n" — yaml wrote a block scalar whose
  // lines of spaces need an indentation indicator it did not give; one such text did not read back at all
  it('writes text whose first lines hold only spaces so that it reads back the same', () => {
    for (const value of [' \n', '   \n \n', '    \t\n', '   \n \t\n', '  \n\n', ' \n a\n']) {
      const tree = { value, list: [value, ''], keys: { '': value } };
      expect(parse(yamlText(tree).text)).toEqual(tree);
      const [draft] = draftTools('srv', [{ name: 't', description: value, inputSchema: { type: 'object', properties: { p: { type: 'string', description: value } } } }], '2026-12-01');
      expect((parse(draft!.text) as { params_schema: { properties: { p: { description: string } } } }).params_schema.properties.p.description).toBe(value);
    }
  });

  it("writes a server's title and description so that the draft shows every hidden character and reads back to them", () => {
    fc.assert(
      fc.property(anyText, anyText, (title, description) => {
        const [draft] = draftTools('srv', [{ name: 't', title, description, inputSchema: { type: 'object', properties: { p: { type: 'string', description } } } }], '2026-12-01');
        expect(draft!.text.match(INVISIBLE_CHARACTERS)).toBeNull();
        const written = parse(draft!.text) as { display: string; params_schema: { properties: { p: { description: string } } } };
        if (title.trim() !== '') expect(written.display).toBe(title);
        expect(written.params_schema.properties.p.description).toBe(description);
      }),
      { numRuns: runs(300) },
    );
  });
});
