// memz23, fixm25: `hldp mcp` caught SIGTERM and SIGINT only once it served on stdio: a client's stop (or Ctrl-C) sent
// during its start — the scan of a remote, the store's opening, the sandbox's probe — met Node's default and ended the
// process mid-start, its row in the store's roll of live instances never marked left. As `hldp serve` and
// `hldp gatekeeper` do, it now catches them from its first line: the start is finished, the gateway closed, nothing
// served, and it exits 143 (130 for SIGINT); a second signal exits at once. The start is held by a git remote that
// answers the clone's fetch only once the test has sent its signal.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { heldRemote } from '../helpers/held-remote.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { instanceRoll, loggedMessages, useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('info');

/** `hldp mcp --repo REPO --as-local`, its stdin held open as a client's is, and what it writes. */
function startMcp(repo: string) {
  const child = track(spawn(process.execPath, [HLDP_BIN, 'mcp', '--repo', repo, '--as-local'], { env: { ...process.env, ...home.env }, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  const said = async (pattern: RegExp): Promise<void> => {
    for (let i = 0; i < 1200 && !pattern.test(stderr) && child.exitCode === null && child.signalCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  return { child, exit, said, stdout: () => stdout, stderr: () => stderr };
}

describe('hldp mcp stopped by a signal', () => {
  it('sent while it scans a remote: the start is finished, the gateway closed without serving, its row marked left, exit 143', { timeout: 120_000 }, async () => {
    const remote = await heldRemote(home.path);
    try {
      const mcp = startMcp(remote.url);
      await remote.fetched;
      mcp.child.kill('SIGTERM');
      // the signal is seen before the fetch goes on
      await mcp.said(/SIGTERM while starting/);
      remote.answer();
      expect(await mcp.exit, mcp.stderr()).toEqual([143, null]);
      expect(mcp.stderr()).toContain('hldp mcp: SIGTERM while starting: it stops, serving nothing, as soon as its start is done (SIGTERM again exits at once)');
      expect(loggedMessages(mcp.stderr())).not.toContain('MCP server on stdio');
      expect(mcp.stdout()).toBe('');
      expect(instanceRoll(home)).toEqual([{ instance: expect.stringContaining(`pid ${mcp.child.pid} `), left_ms: expect.any(Number) }]);
    } finally {
      await remote.close();
    }
  });

  it('sent twice while it starts (Ctrl-C twice): the second exits at once, 130', { timeout: 120_000 }, async () => {
    const remote = await heldRemote(home.path);
    try {
      const mcp = startMcp(remote.url);
      await remote.fetched;
      mcp.child.kill('SIGINT');
      await mcp.said(/SIGINT while starting/);
      mcp.child.kill('SIGINT');
      // the fetch is still held: only the second signal can have ended it
      expect(await mcp.exit, mcp.stderr()).toEqual([130, null]);
      expect(mcp.stdout()).toBe('');
    } finally {
      await remote.close();
    }
  });

  it('sent as soon as it serves: stops serving, closes the gateway, its row marked left, exit 0', { timeout: 120_000 }, async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
    const mcp = startMcp(repo);
    await mcp.said(/"msg":"MCP server on stdio"/);
    mcp.child.kill('SIGTERM');
    expect(await mcp.exit, mcp.stderr()).toEqual([0, null]);
    expect(mcp.stderr()).not.toContain('while starting');
    expect(instanceRoll(home)).toEqual([{ instance: expect.stringContaining(`pid ${mcp.child.pid} `), left_ms: expect.any(Number) }]);
  });
});
