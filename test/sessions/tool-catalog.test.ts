import { describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { exportTools, nameFingerprint } from '../../src/export/index.js';
import { catalogFor } from '../../src/sessions/index.js';
import { makeToolDefinition } from '../matcher/helpers.js';

const indexOf = (names: string[]): ToolIndex => ({
  source: 'test',
  commit: 'c1',
  tools: names.sort().map((name) => makeToolDefinition({ name, intent: `does ${name}` })),
  toolsets: [],
  skills: [],
  errors: [],
  warnings: [],
  scanned_at: '2026-12-02T00:00:00.000Z',
});

describe('the MCP tool catalog', () => {
  // tools listed under their own name keep no entry of their own in the way back (issue #18: at 100,000 tools the
  // catalog kept three maps of every name): each way must still answer for renamed and plain names alike
  describe('when some registry names clash with the meta-tools or do not fit', () => {
    const index = indexOf(['deploy.prod', 'tool_find', 'read-file', '__proto__', 'constructor']);
    const catalog = catalogFor(index);
    const deploy = `deploy_prod_${nameFingerprint('deploy.prod')}`;
    const suffixed = `tool_find_${nameFingerprint('tool_find')}`;

    it('lists exactly what the export lists, the meta-tools first', () => {
      expect(catalog.tools).toEqual(exportTools(index, 'mcp').tools);
    });

    it.each([
      ['a meta-tool', 'tool_find', { kind: 'meta', tool: expect.objectContaining({ name: 'tool_find' }) }],
      ['a tool listed under its own name', 'read-file', { kind: 'tool', name: 'read-file' }],
      ['a renamed tool under its listed name', deploy, { kind: 'tool', name: 'deploy.prod' }],
      ['the registry tool a meta-tool shadows, under its listed name', suffixed, { kind: 'tool', name: 'tool_find' }],
      ['a renamed tool under its registry name (unlisted: passed through)', 'deploy.prod', { kind: 'tool', name: 'deploy.prod' }],
      ['a name no tool has (passed through)', 'no-such-tool', { kind: 'tool', name: 'no-such-tool' }],
      ['an Object.prototype name no tool is listed under', 'hasOwnProperty', { kind: 'tool', name: 'hasOwnProperty' }],
    ])('resolves %s', (_, name, target) => {
      expect(catalog.resolve(name)).toEqual(target);
    });

    it('gives each registry tool the name it is listed under, and any other name as it is', () => {
      for (const tool of index.tools) {
        const listed = catalog.listedName(tool.name);
        expect(catalog.tools.find((spec) => spec.name === listed)?._meta?.['hldp/name']).toBe(tool.name);
        expect(catalog.resolve(listed)).toEqual({ kind: 'tool', name: tool.name });
      }
      expect(catalog.listedName('deploy.prod')).toBe(deploy);
      expect(catalog.listedName('no-such-tool')).toBe('no-such-tool');
    });
  });
});
