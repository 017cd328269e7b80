// Review N, N10: a second SIGTERM to `hldp serve` while calls were in flight exited at once (Node's default for a
// signal nobody listens to any more), before their receipts were stored: those calls left no receipt at all.
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describe('hldp serve', () => {
  describe('when a second SIGTERM comes while calls are in flight', () => {
    it('cancels them, stores a CANCELLED receipt for each saying the gateway was stopped, then exits', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/nap/TOOL.hdlp': makeToolYaml('nap', { executor: 'shell', shell: '{ argv: [sleep, "60"] }' }) + 'constraints: { timeout_ms: 120000 }\n' });
      const server = await home.serve(['--repo', repo]);
      const call = () => fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'nap', params: {} }) }).catch(() => undefined);
      const calls = [call(), call()];
      // both runs started
      for (;;) {
        const health = (await (await fetch(`${server.url}/healthz`)).json()) as { calls_in_flight: number };
        if (health.calls_in_flight === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const exited = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      // the first signal is handled (the server stops listening) before the second comes
      for (;;) {
        if (await fetch(`${server.url}/healthz`).then(() => false, () => true)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      server.child.kill('SIGTERM');
      await exited;
      await Promise.all(calls);
      const stored = JSON.parse((await runCli(['receipts', '--json'], { env: home.env })).stdout) as { receipts: Array<{ tool: string; code: string; error: string }> };
      expect(stored.receipts).toHaveLength(2);
      for (const receipt of stored.receipts) {
        expect(receipt).toMatchObject({ tool: 'nap', code: 'CANCELLED' });
        expect(receipt.error).toMatch(/^cancelled: the gateway was stopped before the call ended; the process group was killed/);
      }
      expect(server.stderr()).toMatch(/SIGTERM again: cancelling 2 call\(s\) in flight/);
    });
  });
});
