import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { EVERYTHING, mcpToolYaml, nodeServer, writeMcpConfig } from '../mcp-servers/support.js';

// Review Z6, Z6-1: with the sandbox off (or `auto` without bubblewrap) a run's PID namespace still saw the host's /proc,
// so a shell tool read a stdio MCP server's environment — the operator's `${VAR}` secret — and printed it reversed past
// the verbatim redaction. The namespace mounts a /proc of its own: a run sees its own processes only.

const SECRET = 'mcp-secret-7f3a9c1e5b2d';
const reversed = [...SECRET].reverse().join('');

const PEEK = [
  'name: peek', 'display: peek', 'intent: lists the processes a run sees and any environment naming the test secret', 'method: run', 'executor: shell',
  'params_schema: {}',
  'shell:',
  '  argv:',
  '    - sh',
  '    - -c',
  "    - 'for p in /proc/[0-9]*; do tr \"\\0\" \"\\n\" < $p/environ 2>/dev/null; done | grep MCP_TEST_SECRET | rev; echo pids=$(ls /proc | grep -c \"^[0-9]\")'",
  'author: TEST-001', 'created: 2026-12-06', 'why: tests what an unsandboxed run sees', '',
].join('\n');

describe('a shell tool with the sandbox off, beside a running stdio MCP server that holds a secret', () => {
  let folder: { path: string; cleanup: () => Promise<void> };
  let serve: ServiceProcess;
  beforeAll(async () => {
    folder = await makeTempDir('hldp-own-proc-');
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/peek/TOOL.hdlp': PEEK, 'tools/echo/TOOL.hdlp': mcpToolYaml('echo', 'everything', 'echo', '{ message: { type: string, required: true } }') });
    const config = await writeMcpConfig(folder.path, { everything: { ...nodeServer(EVERYTHING), env: { MCP_TEST_SECRET: '${HLDP_TEST_MCP_SECRET}' } } });
    await mkdir(join(folder.path, 'workspace'));
    serve = await spawnService(['serve', '--port', '0', '--repo', repo, '--config', config], {
      HLDP_CACHE_DIR: join(folder.path, 'cache'), HLDP_DATA_DIR: join(folder.path, 'data'), HLDP_WORKSPACE: join(folder.path, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000',
      HLDP_SANDBOX: 'off', HLDP_TEST_MCP_SECRET: SECRET,
      // one user for the server and the tool, as a root gateway's run_as makes them (its own folders here are root's)
      ...(process.getuid?.() === 0 ? { HLDP_SANDBOX_RUN_AS: 'root' } : {}),
    }, / at (http:\/\/[\d.:]+)\n/);
  }, 180_000);
  afterAll(async () => {
    await serve?.stop();
    await folder?.cleanup();
  }, 60_000);

  const call = async (tool: string, params: Record<string, unknown>): Promise<any> =>
    (await fetch(`${serve.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params }) })).json();

  it("sees only its own run's processes: not the server's environment, its secret in no spelling", async () => {
    const echoed = await call('echo', { message: 'started' });
    expect(echoed, JSON.stringify(echoed)).toMatchObject({ ok: true });
    const peek = await call('peek', {});
    expect(peek, JSON.stringify(peek)).toMatchObject({ ok: true });
    expect(peek.output).not.toContain(reversed);
    expect(peek.output).not.toContain('[REDACTED]');
    // the init, the tool's shell and its pipeline: a handful, not the host's
    const pids = Number(/pids=(\d+)/.exec(peek.output)?.[1]);
    expect(pids, peek.output).toBeLessThan(10);
  });
});
