import fc from 'fast-check';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { draftTools } from '../../src/cli/mcp-drafts.js';
import { parseToolDefinition } from '../../src/scanner/parse-tool-definition.js';

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
      { numRuns: 300 },
    );
  });

  it('pass validate once author and why are filled in, whatever the server wrote', () => {
    fc.assert(
      fc.property(remoteTool, (tool) => {
        const [draft] = draftTools('srv', [tool], '2026-12-01');
        const filled = draft!.text.replace(/^author: "".*$/m, 'author: ICE-GL-ZY001').replace(/^why: "".*$/m, 'why: agents need it');
        const parsed = parseToolDefinition({ path: `tools/${draft!.name}/TOOL.hdlp`, folder: draft!.name, oid: '0', content: Buffer.from(filled) });
        expect(parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
        expect(parsed.tool?.mcp).toEqual({ server: 'srv', tool: tool.name, ...(tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true ? { idempotent: true } : {}) });
      }),
      { numRuns: 300 },
    );
  });
});
