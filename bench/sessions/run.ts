// Sessions benchmark, side by side in one run: at 10,000 tools and 1,000 live sessions, a session's tools/list
// (served: views shared by sessions with the same toolsets; and computed afresh) against the whole registry's
// list; the prompt block; the memory of an idle session; and which sessions a rescan notifies.
// Usage: npm run bench:sessions [-- --tools 10000 --sessions 1000 --rounds 5 --groups 100]  (--groups 0: no tool in a group)
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config/index.js';
import { META_TOOLS } from '../../src/export/index.js';
import { createMcpServer } from '../../src/mcp-front/create-mcp-server.js';
import { Gateway } from '../../src/gateway/service/index.js';
import { catalogFor, computeView, promptBudget, RegistryView, renderPromptBlock, type SessionState } from '../../src/sessions/index.js';
import { renderTools } from '../../src/sessions/prompt-block.js';
import { CORE_TOOL_LINES } from '../../src/sessions/session-prompt.js';
import { commitFiles, git, initRepository } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, sessions: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '5' }, groups: { type: 'string', default: '100' } } });
const TOOLS = Number(values.tools);
const SESSIONS = Number(values.sessions);
const ROUNDS = Number(values.rounds);
const GROUPS = Number(values.groups);
const TOOLSETS = 20;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:sessions does)');

function toolYaml(name: string, group: number): string {
  return `name: ${name}
display: 工具 ${name}
intent: 对 ${name} 执行一项操作并返回原始结果 (runs operation ${name} and returns the raw result)
method: exec
executor: gatekeeper
${group < 0 ? '' : `group: family-${group}\n`}params_schema:
  target: { type: string, required: true, description: "要操作的对象 (what to act on)" }
  limit: { type: integer, minimum: 1, maximum: 500, default: 10, description: "最多返回多少条 (at most this many)" }
author: BENCH-001
created: 2026-05-31
why: benchmark tool ${name}.
`;
}

// toolset k names twelve tools (seed 000 §10: an active set is ~400 tokens), and the first five also a family of 100
const toolsetYaml = (k: number, extra = ''): string => {
  const members = Array.from({ length: 12 }, (_, i) => `tool-${String(k * 12 + i).padStart(5, '0')}`);
  if (k < 5 && k < GROUPS) members.push(`family-${k}`);
  return `name: set-${k}\ndescription: "work of kind ${k}, tools ${members[0]} to ${members[11]}${members.length > 12 ? ` and family-${k}` : ''}"\ntools: [${members.join(', ')}${extra}]\nauthor: BENCH-001\nwhy: benchmark\n`;
};

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const summary = (samples: number[]) => ({ p50_ms: round(percentile(samples, 50)), p99_ms: round(percentile(samples, 99)), max_ms: round(Math.max(...samples)) });
const round = (value: number) => Math.round(value * 1000) / 1000;
const heap = (): number => {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
};

async function main() {
  const temp = await benchTempDir('hldp-bench-sessions-');
  const repo = await initRepository(join(temp.path, 'repo'));
  // git would pack 20,000 loose objects in the background after the commit, under the scanner's feet
  await git(repo, 'config', 'gc.auto', '0');
  const files: Record<string, string> = {};
  for (let i = 0; i < TOOLS; i += 1) {
    const name = `tool-${String(i).padStart(5, '0')}`;
    files[`tools/${name}/TOOL.hdlp`] = toolYaml(name, GROUPS > 0 ? i % GROUPS : -1);
  }
  for (let k = 0; k < TOOLSETS; k += 1) {
    files[`toolsets/set-${k}/TOOLSET.hdlp`] = toolsetYaml(k);
    files[`skills/skill-${k}/SKILL.md`] = `---\nname: skill-${k}\ndescription: when doing work of kind ${k}\ntoolset: set-${k}\n---\nEnable set-${k}, then call its tools.\n`;
  }
  await commitFiles(repo, files);
  const config = loadConfig({ env: { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path } });
  const scanStart = performance.now();
  const gateway = await Gateway.open({ config });
  const scanSeconds = (performance.now() - scanStart) / 1000;
  const { sessions } = gateway;
  const broken = gateway.registry.index.errors;
  if (broken.length) throw new Error(`the generated repository has problems: ${broken.slice(0, 3).map((error) => `${error.file}:${error.line}:${error.column}: ${error.message}`).join('; ')}`);

  // 1,000 idle sessions, each with one or two toolsets (40 distinct combinations)
  const before = heap();
  const states: SessionState[] = [];
  for (let i = 0; i < SESSIONS; i += 1) {
    const toolsets = i % 2 === 0 ? [`set-${i % TOOLSETS}`] : [`set-${i % TOOLSETS}`, `set-${(i + 7) % TOOLSETS}`];
    const opened = await sessions.open({ toolsets });
    if (!opened.ok) throw new Error(opened.message);
    states.push(opened.session);
  }
  const perSession = (heap() - before) / SESSIONS;

  // tools/list as the server answers it: the session's view (shared per combination), then its MCP specs
  const catalog = catalogFor(gateway.registry.index);
  const listServed: number[] = [];
  const listFresh: number[] = [];
  const promptServed: number[] = [];
  const promptFirst: number[] = [];
  const seen = new Set<string>();
  const stringifySession: number[] = [];
  const stringifyWhole: number[] = [];
  let sessionBytes = 0;
  const wholeBytes = JSON.stringify({ tools: catalog.tools }).length;
  const registry = new RegistryView(gateway.registry.index, (name) => { const found = gateway.registry.matcher.lookup(name); return found.found ? found.tool : undefined; });
  for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
    for (const state of states) {
      let start = performance.now();
      const tools = catalog.toolsFor(sessions.view(state));
      listServed.push(performance.now() - start);
      start = performance.now();
      const view = computeView(registry, [], { session: state.id }, { toolsets: state.toolsets, loaded: new Set() });
      // the meta-tools lead every catalog: counted from their list, not a number (approval_wait made them seven and this broke)
      const fresh = [...catalog.tools.slice(0, META_TOOLS.length), ...view.visible.map((tool) => tool)];
      listFresh.push(performance.now() - start);
      if (fresh.length !== tools.length) throw new Error('a fresh view disagrees with the served one');
      start = performance.now();
      sessionBytes = JSON.stringify({ tools }).length;
      stringifySession.push(performance.now() - start);
      // the first render of a combination of toolsets computes its lines; later ones reuse them
      const combination = state.toolsets.map((toolset) => toolset.name).sort().join(',');
      start = performance.now();
      sessions.prompt(state, { windowTokens: 200_000 });
      (seen.has(combination) ? promptServed : promptFirst).push(performance.now() - start);
      seen.add(combination);
    }
    for (let i = 0; i < 50; i += 1) {
      const start = performance.now();
      JSON.stringify({ tools: catalog.tools });
      stringifyWhole.push(performance.now() - start);
    }
  }
  const block = sessions.prompt(states[0]!, { windowTokens: 200_000 });

  // the block side by side with the two ways it was made before, interleaved per session over a sample (one in five):
  // with each view's tool lines kept and the block fitted on every render (before the block cache), and afresh
  // (every named tool's line worked out from the view, then fitted: the first render of a combination before)
  const budget = promptBudget({ windowTokens: 200_000 });
  const inputOf = (state: SessionState) => {
    const view = sessions.view(state);
    const scoped = state.toolsets.length > 0;
    const listed = new Set([...view.visible, ...view.reserved]);
    const named = scoped ? view.reserved : gateway.registry.index.tools.filter((tool) => listed.has(tool));
    return { core: CORE_TOOL_LINES, toolsets: gateway.registry.index.toolsets, active: state.toolsets, visible: scoped ? view.visible : [], named, skills: sessions.skillIndex(state), groupDescriptions: {}, budget };
  };
  const keptLines = new Map<string, ReturnType<typeof renderTools>>();
  const sideServed: number[] = [];
  const sideKept: number[] = [];
  const sideAfresh: number[] = [];
  for (const state of states.filter((_state, index) => index % 5 === 0)) {
    const combination = state.toolsets.map((toolset) => toolset.name).sort().join(',');
    const input = inputOf(state);
    if (!keptLines.has(combination)) keptLines.set(combination, renderTools(input.visible, input.named));
    let start = performance.now();
    const served = sessions.prompt(state, { windowTokens: 200_000 });
    sideServed.push(performance.now() - start);
    start = performance.now();
    renderPromptBlock({ ...input, named: [], rendered: keptLines.get(combination)! });
    sideKept.push(performance.now() - start);
    start = performance.now();
    const afresh = renderPromptBlock(input);
    sideAfresh.push(performance.now() - start);
    if (afresh.text !== served.text) throw new Error(`the served block differs from the one rendered afresh for ${combination}`);
  }

  // 1,000 MCP sessions (the real server, over in-memory transports), then a rescan that changes one toolset
  const mcpBefore = heap();
  const clients: Array<{ client: Client; notified: number; toolsets: string[] }> = [];
  for (let i = 0; i < SESSIONS; i += 1) {
    const toolsets = [`set-${i % TOOLSETS}`];
    const server = createMcpServer(gateway, { toolsets, principal: 'local' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'bench', version: '0' });
    const entry = { client, notified: 0, toolsets };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      entry.notified += 1;
    });
    await server.connect(serverSide);
    await client.connect(clientSide);
    await client.listTools();
    clients.push(entry);
  }
  const perMcpSession = (heap() - mcpBefore) / SESSIONS;
  await commitFiles(repo, { 'toolsets/set-3/TOOLSET.hdlp': toolsetYaml(3, ', tool-09999') });
  const rescanStart = performance.now();
  const rescan = await gateway.rescan();
  const rescanMs = performance.now() - rescanStart;
  // what the fan-out costs: each session's view of the new index (shared by sessions with the same toolsets), as each MCP session's listener asks for it
  const fanOutStart = performance.now();
  for (const state of states) sessions.view(state);
  const fanOutMs = performance.now() - fanOutStart;
  // notifications travel through the in-memory transports on later turns of the event loop
  await new Promise((resolve) => setTimeout(resolve, 200));
  const expected = clients.filter((entry) => entry.toolsets.includes('set-3')).length;
  const notified = clients.filter((entry) => entry.notified > 0);
  const wrong = notified.filter((entry) => !entry.toolsets.includes('set-3')).length;
  await Promise.all(clients.map((entry) => entry.client.close()));

  const listServedSummary = summary(listServed);
  const result = {
    date: new Date().toISOString(),
    load_average: loadavg().map(round),
    tools: gateway.registry.index.tools.length,
    toolsets: gateway.registry.index.toolsets.length,
    sessions: SESSIONS,
    scan_seconds: round(scanSeconds),
    tools_list: {
      served: listServedSummary,
      computed_afresh: summary(listFresh),
      visible_per_session: { min: Math.min(...states.map((state) => sessions.view(state).visible.length)), max: Math.max(...states.map((state) => sessions.view(state).visible.length)) },
      json_bytes_session_vs_whole: { session: sessionBytes, whole: wholeBytes, ratio: round(sessionBytes / wholeBytes) },
      serialise_session_vs_whole_p50_ms: { session: round(percentile(stringifySession, 50)), whole: round(percentile(stringifyWhole, 50)), ratio: round(percentile(stringifySession, 50) / percentile(stringifyWhole, 50)) },
      target_p99_ms: 2,
    },
    prompt_block: {
      ...summary([...promptServed, ...promptFirst]),
      renders: promptServed.length + promptFirst.length,
      first_render_of_a_combination: { count: promptFirst.length, ...summary(promptFirst) },
      later_renders: summary(promptServed),
      side_by_side_over_one_in_five_sessions: {
        served: summary(sideServed),
        lines_kept_fitted_each_render: summary(sideKept),
        afresh: summary(sideAfresh),
        served_vs_lines_kept: { p50_ratio: round(percentile(sideServed, 50) / percentile(sideKept, 50)), p99_ratio: round(percentile(sideServed, 99) / percentile(sideKept, 99)) },
        served_vs_afresh: { p50_ratio: round(percentile(sideServed, 50) / percentile(sideAfresh, 50)), p99_ratio: round(percentile(sideServed, 99) / percentile(sideAfresh, 99)) },
      },
      first_render_vs_afresh_p50_ratio: round(percentile(promptFirst, 50) / percentile(sideAfresh, 50)),
      chars: block.chars, budget: block.budget, dropped_lines: block.dropped.lines, target_p99_ms: 5 },
    memory_per_idle_session_bytes: { session_state: Math.round(perSession), mcp_session_with_in_process_client: Math.round(perMcpSession) },
    rescan_changing_one_toolset: { changed: rescan.changed, rescan_ms: round(rescanMs), views_of_1000_sessions_on_the_new_index_ms: round(fanOutMs), sessions_notified: notified.length, sessions_whose_view_changed: expected, notified_without_a_change: wrong },
  };
  console.log(JSON.stringify(result, null, 2));
  await gateway.close();
  await rm(temp.path, { recursive: true, force: true });
}

await main();
