import { describe, expect, it } from 'vitest';
import { toolHints } from '../../src/export/index.js';
import { loadStarterTool, makeToolDefinition } from '../executors/support/tool-definitions.js';

const methodParam = (choices: string[]) => ({ type: 'object', properties: { verb: { type: 'string', enum: choices } } });

describe('toolHints', () => {
  describe('when the starter tools are annotated', () => {
    it.each([
      ['shell-exec', { title: 'Shell命令执行' }],
      ['file-read', { title: '文件读取', readOnlyHint: true, openWorldHint: false }],
      ['file-write', { title: '文件写入', destructiveHint: true, openWorldHint: false }],
      ['git-ops', { title: 'Git仓库操作' }],
      ['http-request', { title: 'HTTP请求', readOnlyHint: true, openWorldHint: true }],
    ])('returns for %s only the hints its definition makes true: %j', (name, hints) => {
      expect(toolHints(loadStarterTool(name))).toEqual(hints);
    });
  });

  describe('when the executor and method decide', () => {
    it.each([
      ['gatekeeper list_dir', makeToolDefinition({ executor: 'gatekeeper', method: 'list_dir' }), { readOnlyHint: true, openWorldHint: false }],
      ['gatekeeper read_bytes', makeToolDefinition({ executor: 'gatekeeper', method: 'read_bytes' }), { readOnlyHint: true, openWorldHint: false }],
      ['gatekeeper exec', makeToolDefinition({ executor: 'gatekeeper', method: 'exec' }), {}],
      ['forgejo list_commits', makeToolDefinition({ executor: 'git-forgejo', method: 'list_commits' }), { readOnlyHint: true, openWorldHint: true }],
      ['forgejo create_issue', makeToolDefinition({ executor: 'git-forgejo', method: 'create_issue' }), { openWorldHint: true }],
      ['hldp-api without a method (GET)', makeToolDefinition({ executor: 'hldp-api', http: { path: '/x' } }), { readOnlyHint: true, openWorldHint: true }],
      ['hldp-api POST', makeToolDefinition({ executor: 'hldp-api', http: { path: '/x', method: 'post' } }), { openWorldHint: true }],
      ['hldp-api {verb} in GET|HEAD', makeToolDefinition({ executor: 'hldp-api', http: { path: '/x', method: '{verb}' }, params_schema: methodParam(['get', 'HEAD']) }), { readOnlyHint: true, openWorldHint: true }],
      ['hldp-api {verb} in GET|DELETE', makeToolDefinition({ executor: 'hldp-api', http: { path: '/x', method: '{verb}' }, params_schema: methodParam(['GET', 'DELETE']) }), { openWorldHint: true }],
      ['hldp-api {verb} unconstrained', makeToolDefinition({ executor: 'hldp-api', http: { path: '/x', method: '{verb}' } }), { openWorldHint: true }],
      ['shell, even a read-looking one', makeToolDefinition({ executor: 'shell', method: 'cat', shell: { argv: ['cat', '{path}'] } }), {}],
    ])('returns for %s: %j', (_label, tool, hints) => {
      expect(toolHints(tool)).toEqual({ title: tool.display, ...hints });
    });
  });

  describe('when a tool requires confirmation', () => {
    it('returns destructiveHint, unless the tool only reads (where the hint means nothing)', () => {
      expect(toolHints(makeToolDefinition({ constraints: { require_confirm: true } })).destructiveHint).toBe(true);
      const guardedRead = makeToolDefinition({ executor: 'gatekeeper', method: 'read_file', constraints: { require_confirm: true } });
      expect(toolHints(guardedRead)).toEqual({ title: guardedRead.display, readOnlyHint: true, openWorldHint: false });
    });
  });
});
