import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { exportTools, NAME_LIMITS, nameFingerprint, type ExportFormat } from '../../src/export/index.js';
import { loadStarterTool, makeToolDefinition } from '../executors/support/tool-definitions.js';

const STARTERS = ['file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec'].map(loadStarterTool);
const index = (tools: ToolDefinition[]) => ({ commit: 'c0ffee', tools });
const nameOf = (spec: unknown) => (spec as { name?: string; function?: { name: string } }).function?.name ?? (spec as { name: string }).name;

describe('exportTools', () => {
  describe('when the format is openai', () => {
    it('returns function specs: the meta-tools first, then every tool with its intent and params schema', () => {
      const exported = exportTools(index(STARTERS), 'openai');
      expect(exported.tools.map(nameOf)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait', 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
      const shell = STARTERS.find((tool) => tool.name === 'shell-exec')!;
      expect(exported.tools.at(-1)).toEqual({ type: 'function', function: { name: 'shell-exec', description: shell.intent, parameters: shell.params_schema } });
    });
  });

  describe('when the format is anthropic', () => {
    it('returns {name, description, input_schema} and nothing a provider would reject', () => {
      const exported = exportTools(index(STARTERS), 'anthropic');
      for (const spec of exported.tools) expect(Object.keys(spec).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(exported.tools.find((spec) => spec.name === 'git-ops')?.input_schema).toMatchObject({ type: 'object', properties: { op: { enum: ['log', 'status', 'diff', 'show', 'branch'] } } });
    });
  });

  describe('when the format is mcp', () => {
    it('returns tools/list entries with title, annotations and the registry name in _meta', () => {
      const spec = exportTools(index(STARTERS), 'mcp').tools.find((tool) => tool.name === 'file-write')!;
      expect(spec).toMatchObject({
        title: '文件写入',
        annotations: { destructiveHint: true },
        inputSchema: { type: 'object', required: ['path', 'content'] },
        _meta: { 'hldp/name': 'file-write' },
      });
      expect(spec.description).toMatch(/^把内容写入服务器上的一个文件.*Needs confirmation: .*confirm tool/);
    });
  });

  describe('when names do not fit a format', () => {
    const tools = [makeToolDefinition({ name: 'deploy.prod' }), makeToolDefinition({ name: 'deploy_prod' }), makeToolDefinition({ name: 'confirm' }), makeToolDefinition({ name: `long-${'x'.repeat(70)}` })];

    it.each(['openai', 'anthropic', 'mcp'] as ExportFormat[])('returns %s names the provider accepts, all distinct, each routed back in names', (format) => {
      const exported = exportTools(index(tools), format);
      const names = exported.tools.map(nameOf);
      expect(new Set(names).size).toBe(names.length);
      for (const name of names) expect(name).toMatch(new RegExp(`^[A-Za-z0-9_-]{1,${NAME_LIMITS[format]}}$`));
      expect(exported.names).toMatchObject({ deploy_prod: 'deploy_prod', [`deploy_prod_${nameFingerprint('deploy.prod')}`]: 'deploy.prod', [`confirm_${nameFingerprint('confirm')}`]: 'confirm' });
      expect(Object.values(exported.names).sort()).toEqual(tools.map((tool) => tool.name).sort());
      expect(exported.meta_tools).toEqual({
        toolset: 'POST /v1/call {tool: "toolset"} with X-HLDP-Session', tool_find: 'POST /v1/match', tool_load: 'POST /v1/call {tool: "tool_load"} with X-HLDP-Session',
        tool_call: 'POST /v1/call', read_skill: 'POST /v1/call {tool: "read_skill"} with X-HLDP-Session', confirm: 'POST /v1/confirm', approval_wait: 'GET /v1/approvals/:id?wait=30',
      });
    });

    it('returns a long name whole for mcp (128) and fingerprinted for openai (64)', () => {
      const name = `long-${'x'.repeat(70)}`;
      expect(exportTools(index(tools), 'mcp').names[name]).toBe(name);
      expect(Object.entries(exportTools(index(tools), 'openai').names).find(([, registry]) => registry === name)?.[0]).toBe(`${name.slice(0, 55)}_${nameFingerprint(name)}`);
    });
  });
});
