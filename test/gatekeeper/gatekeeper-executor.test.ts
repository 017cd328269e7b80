import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { execute, type ExecutionContext } from '../../src/executors/index.js';
import { startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';
import { processesMatching } from '../executors/support/processes.js';
import { loadStarterTool, makeToolDefinition } from '../executors/support/tool-definitions.js';

let root: string;
let gatekeeper: RunningGatekeeper;
let context: ExecutionContext;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-gatekeeper-client-')));
  gatekeeper = await startGatekeeper({ root });
  context = { gatekeepers: { default: { url: gatekeeper.url, token: gatekeeper.token } } };
});
afterAll(async () => {
  await gatekeeper.close();
  await rm(root, { recursive: true, force: true });
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('gatekeeper executor', () => {
  describe('when the starter tool shell-exec runs through a real gatekeeper', () => {
    it('returns echo hello’s output raw: hello and a newline', async () => {
      const result = await execute(loadStarterTool('shell-exec'), { cmd: 'echo hello' }, context);
      expect(result).toEqual({
        ok: true,
        output: 'hello\n',
        error: null,
        stderr: '',
        code: null,
        exit_code: 0,
        signal: null,
        timed_out: false,
        output_bytes: 6,
        cut_bytes: 0,
        duration_ms: expect.any(Number),
      });
    });

    it('returns the real stderr of a failing command in full', async () => {
      const result = await execute(loadStarterTool('shell-exec'), { cmd: 'echo first >&2; echo second >&2; exit 4' }, context);
      expect(result).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 4, error: 'first\nsecond\n', stderr: 'first\nsecond\n' });
    });

    it('returns a result in which the gatekeeper token never appears', async () => {
      const result = await execute(loadStarterTool('shell-exec'), { cmd: `echo ${gatekeeper.token}` }, context);
      expect(result.output).toBe('[REDACTED]\n');
    });
  });

  describe('when the file starter tools run through a real gatekeeper', () => {
    it('returns what file-write wrote when file-read reads it back', async () => {
      const written = await execute(loadStarterTool('file-write'), { path: 'notes/today.txt', content: '铸渊\n', create_dirs: true }, context);
      expect(written).toMatchObject({ ok: true });
      expect(await readFile(join(root, 'notes', 'today.txt'), 'utf8')).toBe('铸渊\n');
      const read = await execute(loadStarterTool('file-read'), { path: 'notes/today.txt' }, context);
      expect(read).toMatchObject({ ok: true, output: '铸渊\n', output_bytes: 7 });
    });

    it('returns PATH_OUTSIDE_ROOT from the gatekeeper for a path outside', async () => {
      const result = await execute(loadStarterTool('file-read'), { path: '../../etc/passwd' }, context);
      expect(result).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    });
  });

  describe('when the call is cancelled', () => {
    it('returns CANCELLED, and the gatekeeper kills the command when the client hangs up', async () => {
      const controller = new AbortController();
      const running = execute(loadStarterTool('shell-exec'), { cmd: 'sleep 60.4242' }, { ...context, signal: controller.signal });
      await vi.waitFor(() => expect(processesMatching('sleep 60.4242')).not.toEqual([]), { timeout: 5_000 });
      controller.abort();
      expect(await running).toMatchObject({ ok: false, code: 'CANCELLED' });
      await vi.waitFor(() => expect(processesMatching('sleep 60.4242')).toEqual([]), { timeout: 5_000 });
    });
  });

  describe('when the gatekeeper cannot serve the call', () => {
    it('returns CONNECTION_FAILED with the raw error when nothing listens', async () => {
      const { url, server } = await listen(() => undefined);
      await new Promise((resolve) => server.close(resolve));
      const result = await execute(loadStarterTool('shell-exec'), { cmd: 'true' }, { gatekeepers: { default: { url, token: 'x' } } });
      expect(result).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', exit_code: null });
      expect(result.error).toContain('ECONNREFUSED');
    });

    it('returns TIMEOUT when the gatekeeper does not answer within the deadline and its slack', async () => {
      const { url, server } = await listen(() => undefined);
      try {
        const tool = makeToolDefinition({ executor: 'gatekeeper', method: 'exec', constraints: { timeout_ms: 50 } });
        const result = await execute(tool, { cmd: 'true' }, { gatekeepers: { default: { url, token: 'x' } } });
        expect(result).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true });
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });

    it('returns HTTP_ERROR with the status and the raw body for a wrong token', async () => {
      const result = await execute(loadStarterTool('shell-exec'), { cmd: 'true' }, { gatekeepers: { default: { url: gatekeeper.url, token: 'wrong-token' } } });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
      expect(result.error).toMatch(/^gatekeeper 'default' answered HTTP 401: \{"code":"UNAUTHORIZED"/);
    });

    it('returns HTTP_ERROR naming the methods for a method the gatekeeper lacks', async () => {
      const tool = makeToolDefinition({ executor: 'gatekeeper', method: 'format_disk' });
      const result = await execute(tool, {}, context);
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR', error: expect.stringContaining('use one of: exec, read_file') });
    });

    it('returns EXECUTOR_MISCONFIGURED naming the config key for an unknown target', async () => {
      const tool = makeToolDefinition({ executor: 'gatekeeper', method: 'exec', gatekeeper: { target: 'bs-gz-006' } });
      const result = await execute(tool, { cmd: 'true' }, context);
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
      expect(result.error).toContain('gatekeepers.bs-gz-006');
      expect(result.error).toContain('configured: default');
    });

    it('returns INTERNAL_ERROR when a 200 answer is not a result', async () => {
      const { url, server } = await listen((_request, response) => response.end('<html>proxy page</html>'));
      try {
        const result = await execute(loadStarterTool('shell-exec'), { cmd: 'true' }, { gatekeepers: { default: { url, token: 'x' } } });
        expect(result).toMatchObject({ ok: false, code: 'INTERNAL_ERROR', error: expect.stringContaining('<html>proxy page</html>') });
      } finally {
        server.close();
      }
    });
  });
});
