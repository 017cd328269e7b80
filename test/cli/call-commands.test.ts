import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('hldp call', () => {
  it('prints the raw output on stdout and exits 0 when the receipt says ok', async () => {
    const run = await runCli(['call', 'shell-exec', '--params', '{"cmd":"echo hello"}'], { env: home.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('hello\n');
    // as root (CI), the workspace given to sandbox.run_as is said first (test/cli/workspace-notice.test.ts)
    expect(run.stderr).toMatch(/^(hldp: the workspace .* now belongs to uid 65534, .*\n)?\[ok\] shell-exec gatekeeper\/exec \d+ ms exit 0 · receipt [0-9a-f-]{36}\n$/);
  });

  it('prints the full stderr of a failure and exits 1; receipts --failed shows it later', async () => {
    const run = await runCli(['call', 'shell-exec', '--params', '{"cmd":"echo oops >&2; exit 4"}', '--json'], { env: home.env });
    expect(run.code).toBe(1);
    const receipt = JSON.parse(run.stdout);
    expect(receipt).toMatchObject({ ok: false, tool: 'shell-exec', error: 'oops\n', exit_code: 4, code: 'NONZERO_EXIT' });
    const later = await runCli(['receipts', '--failed', '--json'], { env: home.env });
    expect(JSON.parse(later.stdout)).toEqual({ receipts: [receipt], limit: 20, offset: 0, next_offset: null });
    const detail = await runCli(['receipts', receipt.id], { env: home.env });
    expect(detail.stdout).toContain('--- error ---\noops\n');
  });

  it('stores an INTERNAL_ERROR receipt and exits 1 when the run cannot be set up (a workspace that does not exist)', async () => {
    const missing = { ...home.env, HLDP_WORKSPACE: join(home.path, 'no-such-workspace') };
    const run = await runCli(['call', 'file-read', '--params', '{"path":"notes.txt"}', '--json'], { env: missing });
    expect(run.code).toBe(1);
    const receipt = JSON.parse(run.stdout);
    expect(receipt).toMatchObject({
      ok: false, tool: 'file-read', method: 'read_file', output: '', code: 'INTERNAL_ERROR', exit_code: null,
      error: expect.stringMatching(/workspace '.*no-such-workspace' does not exist; create it or set workspace_root \(or HLDP_WORKSPACE\)/), duration_ms: expect.any(Number), params: { path: 'notes.txt' },
    });
    expect(Object.keys(receipt).slice(0, 6)).toEqual(['ok', 'tool', 'method', 'output', 'error', 'duration_ms']);
    const later = await runCli(['receipts', '--failed', '--json'], { env: missing });
    expect(JSON.parse(later.stdout).receipts).toEqual([receipt]);
  });

  it('lists receipts by tool, newest first', async () => {
    await runCli(['call', 'shell-exec', '--params', '{"cmd":"echo one"}'], { env: home.env });
    await runCli(['call', 'git-ops', '--params', '{"op":"status","path":"."}'], { env: home.env });
    await runCli(['call', 'shell-exec', '--params', '{"cmd":"echo two"}'], { env: home.env });
    const run = await runCli(['receipts', '--tool', 'shell-exec', '--json'], { env: home.env });
    expect(run.code).toBe(0);
    const { receipts } = JSON.parse(run.stdout) as { receipts: Array<{ tool: string; output: string }> };
    expect(receipts.map(({ tool, output }) => [tool, output])).toEqual([['shell-exec', 'two\n'], ['shell-exec', 'one\n']]);
    const all = (JSON.parse((await runCli(['receipts', '--json'], { env: home.env })).stdout) as { receipts: Array<{ tool: string }> }).receipts;
    expect(all.map(({ tool }) => tool)).toEqual(['shell-exec', 'git-ops', 'shell-exec']);
  });

  // deadline17: the receipt says where its deadline came from, and stores it so
  it("records --timeout as the call's own deadline, and a confirm's --timeout as asked at its approval", async () => {
    const run = await runCli(['call', 'shell-exec', '--params', '{"cmd":"echo hi"}', '--timeout', '2s', '--json'], { env: home.env });
    expect(run.code).toBe(0);
    const receipt = JSON.parse(run.stdout);
    expect(receipt).toMatchObject({ ok: true, timeout_ms: 2_000, timeout_from: 'call' });
    const stored = await runCli(['receipts', receipt.id, '--json'], { env: home.env });
    expect(JSON.parse(stored.stdout)).toMatchObject({ id: receipt.id, timeout_ms: 2_000, timeout_from: 'call' });
    // the plain view says who called it, in which session and under which deadline, as --json does (review userZ5, F13)
    const shown = await runCli(['receipts', receipt.id], { env: home.env });
    expect(shown.stdout).toContain(`caller    ${receipt.caller ?? '-'}  session -  deadline 2000 ms (from call)\n`);
    const pending = await runCli(['call', 'file-write', '--params', '{"path":"timed.txt","content":"hi"}', '--json'], { env: home.env });
    expect(pending.code).toBe(3);
    const confirmed = await runCli(['confirm', JSON.parse(pending.stdout).token, '--timeout', '2500', '--json'], { env: home.env });
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({ ok: true, timeout_ms: 2_500, timeout_from: 'approval' });
  });

  it('waits for confirmation (exit 3), and hldp confirm runs exactly that call', async () => {
    const pending = await runCli(['call', 'file-write', '--params', '{"path":"note.txt","content":"hi"}', '--json'], { env: home.env });
    expect(pending.code).toBe(3);
    const { token, params } = JSON.parse(pending.stdout);
    expect(params).toEqual({ path: 'note.txt', content: 'hi', append: false, create_dirs: false });
    const confirmed = await runCli(['confirm', token, '--json'], { env: home.env });
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({ ok: true, tool: 'file-write', params });
    const again = await runCli(['confirm', token], { env: home.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already used/);
  });

  it.each([
    [['call', 'shel-exec'], 1, /unknown tool 'shel-exec'; did you mean 'shell-exec'\?/],
    [['call', 'shell-exec', '--params', '{"cmd":1}'], 1, /'cmd' must be string/],
    [['call', 'shell-exec', '--params', '{cmd}'], 2, /--params is not valid JSON/],
    // review userU, F9: a bare "ENOENT: no such file or directory, open 'no-such-params.json'" named neither
    [['call', 'shell-exec', '--params', '@no-such-params.json'], 2, /^hldp call: --params @no-such-params\.json: cannot read 'no-such-params\.json' \(ENOENT\)/m],
    [['call'], 2, /call needs a tool name/],
  ])('answers %j with exit %i and a message', async (args, code, message) => {
    const run = await runCli(args, { env: home.env });
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
  });
});
