// Review userW, W6: a gatekeeper SIGKILLed in the middle of a call and a gatekeeper never reached both gave
// CONNECTION_FAILED "… UND_ERR_SOCKET: other side closed" / "ECONNREFUSED", with no word of which: the first means the
// command started (its side effects may have happened), the second that nothing was sent and a retry is safe.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const TOKEN = 'gatekeeper-token-for-killed-mid-call';

async function setUp(): Promise<{ repo: string; config: string; root: string }> {
  const repo = join(home.path, 'repo');
  const root = join(home.path, 'gkroot');
  await mkdir(root);
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/gk-run/TOOL.hdlp': makeToolYaml('gk-run', {
      executor: 'gatekeeper',
      method: 'exec',
      params_schema: '\n  cmd: { type: string, required: true }',
      gatekeeper: '{ target: remote }',
    }),
  });
  return { repo, config: join(home.path, 'config.yaml'), root };
}

function callGkRun(repo: string, config: string, cmd: string) {
  return runCli(['call', 'gk-run', '--params', JSON.stringify({ cmd }), '--repo', repo, '--config', config, '--json'], { env: { ...home.env, HLDP_GATEKEEPER_REMOTE_TOKEN: TOKEN } });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('hldp call of a gatekeeper tool', () => {
  describe('when the gatekeeper is killed while the command runs', () => {
    it('says the request was sent and the command may have run: not safe to retry blindly', async () => {
      const { repo, config, root } = await setUp();
      const gatekeeper = await home.start(['gatekeeper', '--port', '0', '--root', root], { HLDP_GATEKEEPER_TOKEN: TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
      await writeFile(config, `gatekeepers:\n  remote: { url: "${gatekeeper.url}" }\n`);
      const running = callGkRun(repo, config, 'touch started; sleep 30; touch finished');
      // the command has started on the gatekeeper's host: now the gatekeeper dies
      await until(() => existsSync(join(root, 'started')));
      gatekeeper.child.kill('SIGKILL');
      const run = await running;
      expect(run.code, run.stderr).toBe(1);
      const receipt = JSON.parse(run.stdout) as { code: string; error: string };
      expect(receipt.code).toBe('CONNECTION_FAILED');
      expect(receipt.error).toContain(`gatekeeper 'remote': POST ${gatekeeper.url}/exec: `);
      expect(receipt.error).toContain('the request was sent and the connection broke before the whole answer came: the command may have run, in part or whole');
      expect(receipt.error).not.toContain('safe to retry');
    });
  });

  describe('when nothing listens at the gatekeeper\'s address', () => {
    it('says nothing was sent, so nothing ran: safe to retry', async () => {
      const { repo, config, root } = await setUp();
      const gatekeeper = await home.start(['gatekeeper', '--port', '0', '--root', root], { HLDP_GATEKEEPER_TOKEN: TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
      await writeFile(config, `gatekeepers:\n  remote: { url: "${gatekeeper.url}" }\n`);
      await gatekeeper.stop();
      const run = await callGkRun(repo, config, 'touch ran');
      expect(run.code, run.stderr).toBe(1);
      const receipt = JSON.parse(run.stdout) as { code: string; error: string };
      expect(receipt.code).toBe('CONNECTION_FAILED');
      expect(receipt.error).toContain('ECONNREFUSED');
      expect(receipt.error).toContain('nothing was sent (no connection was made), so nothing ran: safe to retry');
      expect(existsSync(join(root, 'ran'))).toBe(false);
    });
  });
});
