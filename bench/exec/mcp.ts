// Benchmarks of the mcp executor against the official reference server; prints one JSON document.
//   npm run bench:exec:mcp        (also the second half of npm run bench:exec)
// 1. overhead per call: `echo` of @modelcontextprotocol/server-everything through execute() and the server pool
//    (over stdio, in the default sandbox and without one, the PID namespace only; over Streamable HTTP) vs the same server called with the
//    SDK client directly, interleaved, medians and their ratios (target ≤ 1.5×)
// 2. cold start: a fresh pool's first call (start, initialize, the call) vs the SDK client's connect and first call,
//    and the warm call after it, for scale
import { realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ToolDefinition } from '../../src/core/index.js';
import { execute, minimalEnvironment, type ExecutionContext } from '../../src/executors/index.js';
import { McpServerPool, type McpServerConfig } from '../../src/mcp-servers/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { EVERYTHING, startEverythingHttp } from '../../test/mcp-servers/support.js';
import { benchFolder } from '../work-folder.js';

const CALL_RUNS = Number(process.env.BENCH_MCP_RUNS ?? 300);
const COLD_RUNS = Number(process.env.BENCH_MCP_COLD_RUNS ?? 8);
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

const echo: ToolDefinition = {
  name: 'mcp_everything_echo',
  display: 'echo',
  intent: 'benchmark',
  method: 'tools/call',
  executor: 'mcp',
  params_schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  constraints: { timeout_ms: 30_000, max_output_bytes: 65_536, require_confirm: false },
  author: 'bench',
  created: '2026-05-31',
  why: 'numbers',
  aliases: [],
  examples: [],
  mcp: { server: 'everything', tool: 'echo' },
  source: { path: 'tools/mcp_everything_echo/TOOL.hdlp', oid: '0' },
};
const MESSAGE = 'hello 你好 привет';
const EXPECTED = `Echo: ${MESSAGE}`;

function stdioServer(): McpServerConfig {
  // as an operator declares a server installed in this project: it may read the project (its packages) and Node
  return {
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING],
    env: {},
    sandbox: { filesystem: { read: [PROJECT_ROOT, dirname(process.execPath)] } },
    secrets: [],
    idleMs: 0,
    startupTimeoutMs: 60_000,
  };
}

function httpServer(url: string): McpServerConfig {
  return { transport: 'http', url, headers: {}, secrets: [], idleMs: 0, startupTimeoutMs: 60_000 };
}

function pool(config: McpServerConfig, workspace: string, sandbox?: Sandbox): McpServerPool {
  return new McpServerPool({ everything: config }, { workspace, serversFolder: join(tmpdir(), 'hldp-bench-mcp-servers'), clientInfo: { name: 'brush-holder-bench', version: '0' }, ...(sandbox ? { sandbox: async () => sandbox } : {}) });
}

async function viaExecutor(context: ExecutionContext): Promise<void> {
  const result = await execute(echo, { message: MESSAGE }, context);
  if (!result.ok || result.output !== EXPECTED) throw new Error(`echo through the executor failed: ${JSON.stringify(result)}`);
}

async function viaClient(client: Client): Promise<void> {
  const result = (await client.callTool({ name: 'echo', arguments: { message: MESSAGE } })) as { content: Array<{ text?: string }> };
  if (result.content[0]?.text !== EXPECTED) throw new Error(`echo through the SDK client failed: ${JSON.stringify(result)}`);
}

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: 'bench-direct', version: '0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING], env: minimalEnvironment(), stderr: 'ignore' }));
  return client;
}

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'bench-direct', version: '0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Each variant called in turn, the order rotated every run; medians, their ratio to `baseline`, and the median of paired ratios. */
async function interleaved(variants: Record<string, () => Promise<void>>, baseline: string) {
  const names = Object.keys(variants);
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let warm = 0; warm < 30; warm += 1) for (const name of names) await variants[name]!();
  for (let run = 0; run < CALL_RUNS; run += 1) {
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(run + turn) % names.length]!;
      const start = performance.now();
      await variants[name]!();
      times[name]!.push(performance.now() - start);
    }
  }
  const base = times[baseline]!;
  return Object.fromEntries(
    names.map((name) => {
      const own = times[name]!;
      const row = { median_ms: round(median(own)), p90_ms: round(quantile(own, 0.9)) };
      if (name === baseline) return [name, row];
      return [name, { ...row, ratio: round(median(own) / median(base)), paired_ratio_median: round(median(own.map((time, run) => time / base[run]!))) }];
    }),
  );
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** A fresh server each run: the pool's first call (start, initialize, call) and the SDK client's connect + first call, alternated. */
async function coldStart(workspace: string, sandbox: Sandbox) {
  const firstCall: Record<string, number[]> = { executor_sandboxed: [], executor_unsandboxed: [], sdk_client_direct: [] };
  const warmAfter: number[] = [];
  const runs: Array<[string, () => Promise<void>]> = [
    [
      'executor_sandboxed',
      async () => {
        const servers = pool(stdioServer(), workspace, sandbox);
        try {
          const start = performance.now();
          await viaExecutor({ mcpServers: servers });
          firstCall.executor_sandboxed!.push(performance.now() - start);
          const warm = performance.now();
          await viaExecutor({ mcpServers: servers });
          warmAfter.push(performance.now() - warm);
        } finally {
          await servers.close();
        }
      },
    ],
    [
      'executor_unsandboxed',
      async () => {
        const servers = pool(stdioServer(), workspace);
        try {
          const start = performance.now();
          await viaExecutor({ mcpServers: servers });
          firstCall.executor_unsandboxed!.push(performance.now() - start);
        } finally {
          await servers.close();
        }
      },
    ],
    [
      'sdk_client_direct',
      async () => {
        const start = performance.now();
        const client = await stdioClient();
        try {
          await viaClient(client);
          firstCall.sdk_client_direct!.push(performance.now() - start);
        } finally {
          await client.close();
        }
      },
    ],
  ];
  for (let run = 0; run < COLD_RUNS; run += 1) for (let turn = 0; turn < runs.length; turn += 1) await runs[(run + turn) % runs.length]![1]();
  return {
    runs: COLD_RUNS,
    ...Object.fromEntries(Object.entries(firstCall).map(([name, times]) => [name, { median_ms: round(median(times), 1), max_ms: round(Math.max(...times), 1) }])),
    warm_call_after_it_median_ms: round(median(warmAfter), 2),
  };
}

const workspace = await realpath(benchFolder('hldp-bench-mcp-'));
const closers: Array<() => Promise<unknown>> = [];
try {
  const sandbox = await createSandbox({ mode: 'auto' });
  if (sandbox.status.sandbox !== 'on') throw new Error(`the sandboxed rows need bubblewrap: ${sandbox.status.reason}`);
  const loadBefore = loadavg().map((value) => round(value, 2));

  const sandboxedPool = pool(stdioServer(), workspace, sandbox);
  const unsandboxedPool = pool(stdioServer(), workspace);
  const direct = await stdioClient();
  closers.push(() => sandboxedPool.close(), () => unsandboxedPool.close(), () => direct.close());
  const stdio = await interleaved(
    {
      sdk_client_direct: () => viaClient(direct),
      executor_sandboxed: () => viaExecutor({ mcpServers: sandboxedPool }),
      executor_unsandboxed: () => viaExecutor({ mcpServers: unsandboxedPool }),
    },
    'sdk_client_direct',
  );

  const http = await startEverythingHttp();
  closers.push(() => http.close());
  const httpPool = pool(httpServer(http.url), workspace);
  const httpDirect = await httpClient(http.url);
  closers.push(() => httpPool.close(), () => httpDirect.close());
  const streamable = await interleaved({ sdk_client_direct: () => viaClient(httpDirect), executor: () => viaExecutor({ mcpServers: httpPool }) }, 'sdk_client_direct');

  const cold = await coldStart(workspace, sandbox);
  const report = {
    benchmark: 'exec:mcp',
    node: process.version,
    cpus: cpus().length,
    server: `@modelcontextprotocol/server-everything ${(require('@modelcontextprotocol/server-everything/package.json') as { version: string }).version}, tool echo`,
    load_average_before: loadBefore,
    overhead_per_call: { runs: CALL_RUNS, target_ratio: 1.5, stdio, streamable_http: streamable },
    cold_start_stdio: cold,
    load_average_after: loadavg().map((value) => round(value, 2)),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await rm(workspace, { recursive: true, force: true });
}
