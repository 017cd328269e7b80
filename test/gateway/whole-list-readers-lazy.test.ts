import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { toolsOf, type ToolDefinition } from '../../src/core/index.js';
import { writeToolList } from '../../src/cli/commands/list-command.js';
import { registryView } from '../../src/console/views/registry.js';
import { exportTools } from '../../src/export/index.js';
import { toolListQuery } from '../../src/request-checks/index.js';
import { toolPage } from '../../src/gateway/http/tool-list.js';
import { GatewayMetrics } from '../../src/gateway/http/gateway-metrics.js';
import { builtWhole, servedFromCache } from '../helpers/lazy-index.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// issue #18: an index served from the scan cache makes a tool when asked for and holds it weakly; reading
// `index.tools` makes and keeps every definition (~170 MB at 100,000 tools). These readers take one tool at a time.
const TOOLS: ToolDefinition[] = [
  makeToolDefinition({ name: 'shell-exec', display: 'Shell', intent: 'run a shell command', aliases: ['bash'], group: 'system' }),
  makeToolDefinition({ name: 'git-ops', display: 'Git', intent: 'inspect a git repository', executor: 'git-forgejo', group: 'vcs' }),
  makeToolDefinition({ name: 'file-read', display: 'Read', intent: 'read one file', constraints: { timeout_ms: 5_000, max_output_bytes: 1_024, require_confirm: true } }),
  ...Array.from({ length: 12 }, (_, at) => makeToolDefinition({ name: `report-${String(at).padStart(2, '0')}`, intent: `report number ${at} of the ledger`, group: at % 2 ? 'reports' : undefined })),
];

describe('GET /v1/tools pages, over an index whose tools are made when read', () => {
  it.each([{}, { limit: '4', offset: '2' }, { q: 'ledger', limit: '3', offset: '1' }, { group: 'reports', summary: 'true' }, { q: 'SHELL bash' }, { q: 'nothing-like-it' }, { offset: '40' }])(
    'answer %j as over the index built whole, the tools made kept only the page\'s',
    (parameters) => {
      const query = toolListQuery(parameters);
      if (typeof query === 'string') throw new Error(query);
      const { index, kept } = servedFromCache(TOOLS);
      const page = toolPage(index, query);
      expect(page).toEqual(toolPage(builtWhole(TOOLS), query));
      expect(kept.length).toBeLessThanOrEqual(page.tools.length);
      expect(Array.isArray(toolsOf(index))).toBe(false);
    },
  );
});

describe('hldp list, over an index whose tools are made when read', () => {
  it.each([false, true])('writes what it writes for the index built whole (--json %s), keeping no tool made', async (json) => {
    const printed = async (index: ReturnType<typeof builtWhole>): Promise<string> => {
      const stdout = new PassThrough();
      const chunks: Buffer[] = [];
      stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      await writeToolList({ stdout, stderr: new PassThrough() }, index, json);
      return Buffer.concat(chunks).toString('utf8');
    };
    const { index, kept } = servedFromCache(TOOLS);
    const whole = builtWhole(TOOLS);
    const text = await printed(index);
    expect(text).toBe(await printed(whole));
    if (json) expect(text).toBe(`${JSON.stringify({ commit: whole.commit, tools: whole.tools }, null, 2)}\n`);
    expect(kept).toEqual([]);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });

  it('writes an empty list as JSON.stringify does', async () => {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    await writeToolList({ stdout, stderr: new PassThrough() }, servedFromCache([]).index, true);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`${JSON.stringify({ commit: 'c0ffee', tools: [] }, null, 2)}\n`);
  });
});

describe('an export, over an index whose tools are made when read', () => {
  it.each(['openai', 'anthropic', 'mcp'] as const)('is the %s export of the index built whole, keeping no tool made', (format) => {
    const { index, kept } = servedFromCache(TOOLS);
    expect(exportTools(index, format)).toEqual(exportTools(builtWhole(TOOLS), format));
    expect(kept).toEqual([]);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});

describe("the console's registry page, over an index whose tools are made when read", () => {
  it('is the page of the index built whole, keeping no tool made', () => {
    const { index, kept } = servedFromCache(TOOLS);
    expect(registryView(index, index, undefined, []).text).toBe(registryView(builtWhole(TOOLS), index, undefined, []).text);
    expect(kept).toEqual([]);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});

// review Z9-8: the metrics kept a map of every tool's executor, made at every start and rescan from `index.tools`
describe('the metrics, told of an index whose tools are made when read', () => {
  it('make no tool until a call waiting for approval is counted, and then that tool alone', () => {
    const { index, kept, made } = servedFromCache(TOOLS);
    const metrics = new GatewayMetrics();
    metrics.indexServed(index);
    metrics.observer().scanned?.({ previous: index.commit, commit: index.commit, changed: false, index } as never);
    expect({ made: made(), kept }).toEqual({ made: 0, kept: [] });
    metrics.observer().called?.({ kind: 'confirmation_required', confirmation: { tool: 'git-ops', status: 'approval_required' } } as never, 0.01);
    expect(made()).toBe(1);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});
