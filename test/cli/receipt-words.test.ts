// Review userY, Y4 and Y7, as a user of the CLI reads a receipt:
// - Y4: a TIMEOUT's note on where its deadline came from was appended after the tool's raw stderr, inside `error`, so
//   it read as the tool's last stderr line (after all of it, with 64 KiB of stderr). It now ends the executor's own
//   first line, and the tool's stderr follows unchanged.
// - Y7: a request's link in a receipt printed in full read "confirmed apr_…" for a denied (or expired) request too.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let repo: string;
let env: NodeJS.ProcessEnv;
let cleanup: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const temp = await makeTempDir();
  cleanup = temp.cleanup;
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/slow/TOOL.hdlp': makeToolYaml('slow', { executor: 'shell', method: 'run', shell: '{ script: "echo started; printf \'warn\\\\nlast words\\\\n\' >&2; sleep 5" }', constraints: '{ timeout_ms: 1500 }' }),
    'tools/held/TOOL.hdlp': makeToolYaml('held', { executor: 'shell', method: 'run', shell: '{ argv: [echo, it] }', constraints: '{ require_confirm: true }' }),
  });
});
afterAll(async () => {
  await cleanup?.();
});

describe('a TIMEOUT receipt (Y4)', () => {
  it("says where its limit came from on the executor's own line, and keeps the tool's stderr after it, unchanged", async () => {
    const run = await runCli(['call', 'slow', '--repo', repo, '--json'], { env });
    expect(run.code, run.stderr).toBe(1);
    const receipt = JSON.parse(run.stdout) as { code: string; error: string; stderr: string; output: string };
    expect(receipt.code).toBe('TIMEOUT');
    expect(receipt.output).toBe('started\n');
    const [first, ...rest] = receipt.error.split('\n');
    expect(first).toBe("timed out after 1500 ms; the process group was killed (SIGTERM, then SIGKILL) (the limit was 'slow's constraints.timeout_ms (1500 ms); no call may ask for more: set constraints.max_timeout_ms in its TOOL.hdlp to let calls ask for longer)");
    expect(rest.join('\n')).toBe('warn\nlast words\n');
  });
});

describe("a denied request's receipt (Y7)", () => {
  it('names the request and how it was decided, never "confirmed"', async () => {
    const asked = await runCli(['call', 'held', '--repo', repo, '--json'], { env });
    expect(asked.code, asked.stderr).toBe(3);
    const { id } = JSON.parse(asked.stdout) as { id: string };
    const denied = await runCli(['approvals', 'deny', id, '--repo', repo, '--reason', 'not today'], { env });
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toContain(`\nrequest   ${id} (denied by local)\n`);
    expect(denied.stdout).not.toContain('confirmed');
  });
});
