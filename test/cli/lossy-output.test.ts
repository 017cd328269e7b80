// Review N, N6: a tool's output that is not UTF-8 was decoded with each invalid sequence as U+FFFD, and its receipt,
// meant raw, did not say so: a reader took the replacement signs for what the tool printed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

// Latin-1 "café" (0xE9 is no UTF-8), then valid UTF-8
const PRINTS_LATIN1 = "printf 'caf\\351 ok\\n'; printf '\\377 \\303\\251\\n' >&2";

describe('a tool whose output is not UTF-8', () => {
  it('gets a receipt that flags stdout and stderr as lossy, stored so, and the CLI says it (a shell tool)', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/latin/TOOL.hdlp': makeToolYaml('latin', { executor: 'shell', shell: JSON.stringify({ script: PRINTS_LATIN1 }) }) });
    const run = await runCli(['call', 'latin', '--repo', repo, '--json'], { env: home.env });
    expect(run.code).toBe(0);
    const receipt = JSON.parse(run.stdout);
    expect(receipt).toMatchObject({ ok: true, output: 'caf\uFFFD ok\n', stderr: '\uFFFD é\n', output_lossy: true, stderr_lossy: true, output_bytes: 13 });
    const stored = await runCli(['receipts', receipt.id, '--json'], { env: home.env });
    expect(JSON.parse(stored.stdout)).toMatchObject({ output_lossy: true, stderr_lossy: true });
    const human = await runCli(['call', 'latin', '--repo', repo], { env: home.env });
    expect(human.stderr).toMatch(/\(stdout and stderr not UTF-8: invalid bytes shown as U\+FFFD\) · receipt/);
  });

  it('is flagged through the gatekeeper too (shell-exec), and valid UTF-8 output is not', async () => {
    const lossy = JSON.parse((await runCli(['call', 'shell-exec', '--params', JSON.stringify({ cmd: "printf 'caf\\351'" }), '--json'], { env: home.env })).stdout);
    expect(lossy).toMatchObject({ ok: true, output: 'caf\uFFFD', output_lossy: true });
    expect(lossy).not.toHaveProperty('stderr_lossy');
    const clean = JSON.parse((await runCli(['call', 'shell-exec', '--params', JSON.stringify({ cmd: "printf 'caf\\303\\251'" }), '--json'], { env: home.env })).stdout);
    expect(clean).toMatchObject({ ok: true, output: 'café' });
    expect(clean).not.toHaveProperty('output_lossy');
  });
});
