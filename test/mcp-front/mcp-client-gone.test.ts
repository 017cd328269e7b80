// Review R, R15: an MCP client that went away before matching was ready (its stdin closed at once) left `hldp mcp`
// running until the matcher's preparation had finished (the search index built, its confidence cut measured, the
// warm-up run): seconds of CPU for nobody at 100,000 tools, and "intent matching ready" logged after the client left.
// Closing the gateway now stops the preparation at its next turn. The registry is large (a few thousand generated
// tools, no search index kept yet) so that its preparation takes far longer than noticing the closed stdin; the test
// asserts what the server says, never how long anything took.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRepository } from '../../bench/scan/generate-repository.js';
import { useCliHome } from '../helpers/cli-home.js';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const TOOLS = 3000;
const home = useCliHome();
// one repository for both cases (writing it is most of the test's time); each run has a cache of its own
let folder: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  folder = await makeTempDir();
  await generateRepository(join(folder.path, 'repo'), TOOLS);
}, 120_000);
afterAll(() => folder?.cleanup());

const INITIALIZE = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

describe('hldp mcp', () => {
  describe('when its client closes stdin before intent matching is ready', () => {
    it.each([
      ['at once', ''],
      ['right after initialize', INITIALIZE.map((message) => `${JSON.stringify(message)}\n`).join('')],
    ])('stops preparing matching and exits 0 (stdin closed %s)', async (_when, input) => {
      const repo = join(folder.path, 'repo');
      const run = await runCli(['mcp', '--repo', repo], { env: { ...home.env, HLDP_LOG_LEVEL: 'info' }, input, timeoutMs: 120_000 });
      expect(run.code).toBe(0);
      const said = run.stderr.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg);
      // a registry this large also gets the start warning of a whole tools/list (review userZ, Z6), said once
      const whole = said.filter((message) => message.startsWith('a session with no toolset active lists every tool'));
      expect(whole).toHaveLength(1);
      expect(said.filter((message) => !whole.includes(message))).toEqual(['MCP server on stdio', 'intent matching not prepared: the server is closing']);
      if (input !== '') expect(JSON.parse(run.stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: expect.anything() } });
    }, 150_000);
  });
});
