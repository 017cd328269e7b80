import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';
import { spawnService } from '../helpers/spawn-service.js';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir('hldp-deny-');
});
afterAll(() => temp.cleanup());

describe('sessions.deny (found in review)', () => {
  describe.each([
    ['its name', 'shell-exec'],
    ['its name in another letter case', 'Shell-Exec'],
    ['an alias of it', 'bash'],
    ['an alias in another case and spacing', 'Выполнить   КОМАНДУ'],
  ])('when the list names the tool by %s', (_how, entry) => {
    it('refuses the call with 403 TOOL_FORBIDDEN: nothing ran', async () => {
      const config = join(temp.path, `${Math.random().toString(36).slice(2)}.yaml`);
      await writeFile(config, `sessions: { deny: [${JSON.stringify(entry)}] }\n`);
      const server = await startTestServer('native-repo', { HLDP_CONFIG: config });
      try {
        const called = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo the shell ran' } } });
        expect(called).toMatchObject({ status: 403, json: { code: 'TOOL_FORBIDDEN' } });
        expect(called.json.error).toMatch(/sessions\.deny/);
        expect(called.text).not.toContain('the shell ran\n');
      } finally {
        await server.cleanup();
      }
    });
  });

  describe('when an entry names no tool, alias or group of the registry', () => {
    it('says so in the log of hldp serve, naming the entry', async () => {
      const config = join(temp.path, 'unmatched.yaml');
      await writeFile(config, 'sessions: { deny: [shell-exec, no-such-tool] }\n');
      const env = { HLDP_REPO: 'native-repo', HLDP_CONFIG: config, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
      const service = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
      try {
        expect(await request(service, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'true' } } })).toMatchObject({ status: 403 });
        // the warning is written as the call is decided, but its bytes cross the child's stderr pipe on their own schedule: a loaded machine can deliver the HTTP answer first
        await vi.waitFor(() => expect(service.stderr()).toMatch(/sessions\.deny names no tool, alias or group of this registry/), { timeout: 10_000, interval: 20 });
        expect(service.stderr()).toContain('no-such-tool');
        expect(service.stderr()).not.toMatch(/"entries":\[[^\]]*"shell-exec"/);
      } finally {
        await service.stop();
      }
    });
  });
});
