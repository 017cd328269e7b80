import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { evalShTool } from './support/eval-tool.js';

// Review K, K9: a tool printed the launcher's own failure line on stderr and exited 125 or 127, and its receipt said
// SANDBOX_FAILED or SPAWN_FAILED ("the tool did not run", exit_code null) after it had run and written a file.
// A real `hldp serve` over a real repository, called over HTTP, with the sandbox on and off.

const API_TOKEN = 'api-token-forged-not-started-0123456';
const auth = { authorization: `Bearer ${API_TOKEN}` };

const FORGERIES = [
  { exit: 127, line: 'hldp-sandbox: 9: exec: x: not found', marker: 'RAN-127' },
  { exit: 126, line: 'prlimit: failed to execute x: Permission denied', marker: 'RAN-126' },
  { exit: 125, line: 'hldp-sandbox: the limits of this run could not be set', marker: 'RAN-125' },
  { exit: 125, line: "hldp-sandbox: 3: cd: can't cd to /nowhere", marker: 'RAN-125-cd' },
];

for (const mode of ['auto', 'off'] as const) {
  const suite = mode === 'auto' ? describeWithBubblewrap : describe;
  suite(`a tool that prints the launcher's failure line (sandbox: ${mode})`, () => {
    let temp: { path: string; cleanup: () => Promise<void> };
    let workspace: string;
    let gateway: ServiceProcess;

    beforeAll(async () => {
      temp = await makeTempDir();
      workspace = join(temp.path, 'workspace');
      await mkdir(workspace);
      await writeFiles(join(temp.path, 'repo'), {
        'tools/sh/TOOL.hdlp': evalShTool(),
        'tools/missing/TOOL.hdlp': makeToolYaml('missing', { executor: 'shell', method: 'run', shell: '{ argv: [no-such-program-hldp-k9] }' }),
      });
      gateway = await spawnService(
        ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
        { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: API_TOKEN, HLDP_SANDBOX: mode },
        / at (http:\/\/[\d.:]+)\n/,
      );
    });
    afterAll(async () => {
      await gateway?.stop();
      await temp?.cleanup();
    });

    it('gets the receipt of a run that happened: NONZERO_EXIT with its own exit code, stderr and output', async () => {
      for (const { exit, line, marker } of FORGERIES) {
        const cmd = `echo did-work > ${marker}; echo important output; echo "${line}" >&2; exit ${exit}`;
        const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd } }, headers: auth });
        expect(response.status).toBe(200);
        expect(await readFile(join(workspace, marker), 'utf8')).toBe('did-work\n');
        expect(response.json).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: exit, output: 'important output\n', stderr: `${line}\n` });
      }
    });

    it('still says a program that is not there never started', async () => {
      const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'missing', params: {} }, headers: auth });
      expect(response.json).toMatchObject({ ok: false, code: 'SPAWN_FAILED', exit_code: null });
      expect(response.json.error).toMatch(/no-such-program-hldp-k9.*(ENOENT|not found)/);
      // the launcher's closing line, with the run's secret, is not the tool's stderr: neither kept nor counted (review userZ5, F6)
      expect(response.json.stderr).not.toContain('the tool was not started');
      expect(response.json.output_bytes).toBe(Buffer.byteLength(response.json.stderr) + Buffer.byteLength(response.json.output));
    });
  });
}
