// memz23, fixm25: `hldp mcp` caught SIGTERM and SIGINT only once it served on stdio: a client's stop (or Ctrl-C) sent
// during its start — the scan of a remote, the store's opening, the sandbox's probe — met Node's default and ended the
// process mid-start, its row in the store's roll of live instances never marked left. As `hldp serve` and
// `hldp gatekeeper` do, it now catches them from its first line: the start is finished, the gateway closed, nothing
// served, and it exits 143 (130 for SIGINT); a second signal exits at once. The start is held by a git remote that
// answers the clone's fetch only once the test has sent its signal.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer } from '../helpers/git-http-server.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('info');

// the messages of the process's JSON log lines, in order
const logged = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);

// this store's roll of live instances: each row's instance and when it said it left (null: it never did)
function roll(): Array<{ instance: string; left_ms: number | null }> {
  const database = new Database(join(home.path, 'data', 'receipts.db'), { readonly: true });
  try {
    return database.prepare('SELECT instance, left_ms FROM gateway_instances').all() as Array<{ instance: string; left_ms: number | null }>;
  } finally {
    database.close();
  }
}

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

/** A remote of one tool whose clone's fetch is answered only once `answer` is called; `fetched` once it is asked. */
async function heldRemote() {
  const served = join(home.path, 'served');
  await initRepository(join(served, 'tools.git'), { bare: true });
  let fetching!: () => void;
  const fetched = new Promise<void>((resolve) => (fetching = resolve));
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const server = await startGitHttpServer({
    projectRoot: served,
    beforeServing: async (method, path) => {
      if (method === 'POST' && path.endsWith('/git-upload-pack')) {
        fetching();
        await answered;
      }
    },
  });
  const work = await initRepository(join(home.path, 'work'));
  await commitFiles(work, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
  await git(work, 'push', '-q', `${server.url}/tools.git`, 'main');
  return {
    url: `${server.url}/tools.git`,
    fetched,
    answer,
    close: async () => {
      answer();
      await server.close();
    },
  };
}

describe('hldp mcp stopped by a signal', () => {
  it('sent while it scans a remote: the start is finished, the gateway closed without serving, its row marked left, exit 143', { timeout: 120_000 }, async () => {
    const remote = await heldRemote();
    try {
      const mcp = startMcp(remote.url);
      await remote.fetched;
      mcp.child.kill('SIGTERM');
      // the signal is seen before the fetch goes on
      await mcp.said(/SIGTERM while starting/);
      remote.answer();
      expect(await mcp.exit, mcp.stderr()).toEqual([143, null]);
      expect(mcp.stderr()).toContain('hldp mcp: SIGTERM while starting: it stops, serving nothing, as soon as its start is done (SIGTERM again exits at once)');
      expect(logged(mcp.stderr())).not.toContain('MCP server on stdio');
      expect(mcp.stdout()).toBe('');
      expect(roll()).toEqual([{ instance: expect.stringContaining(`pid ${mcp.child.pid} `), left_ms: expect.any(Number) }]);
    } finally {
      await remote.close();
    }
  });

  it('sent twice while it starts (Ctrl-C twice): the second exits at once, 130', { timeout: 120_000 }, async () => {
    const remote = await heldRemote();
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
    expect(roll()).toEqual([{ instance: expect.stringContaining(`pid ${mcp.child.pid} `), left_ms: expect.any(Number) }]);
  });
});
