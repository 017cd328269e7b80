import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { connectStdio } from '../mcp-front/support.js';
import { call, connectClient, listedNames, META, startSessionServer, textOf } from './support.js';

// Acceptance of issue #13 over MCP: the official SDK client against a real gateway (hldp serve's server, /mcp).
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function serve(options: Parameters<typeof startSessionServer>[1] = {}, repo = 'native-repo') {
  const started = await startSessionServer(repo, options);
  cleanups.push(started.close);
  return started;
}

async function connect(url: string) {
  const connected = await connectClient(url);
  cleanups.push(connected.close);
  return connected;
}

const TEN_MINUTES = 10 * 60_000;

describe('MCP sessions', () => {
  describe('when a client connects with /mcp?toolsets=repo', () => {
    it('lists only that toolset plus the meta-tools', async () => {
      const { server } = await serve();
      const { client } = await connect(`${server.url}/mcp?toolsets=repo`);
      expect(await listedNames(client)).toEqual([...META, 'file-read', 'file-write', 'git-ops']);
    });

    it('refuses an unknown toolset with the ones there are', async () => {
      const { server } = await serve();
      await expect(connectClient(`${server.url}/mcp?toolsets=nope`)).rejects.toThrow(/no toolset nope; available: ops, repo/);
    });

    it('lists every tool without a toolset, as before sessions', async () => {
      const { server } = await serve();
      const { client } = await connect(`${server.url}/mcp`);
      expect(await listedNames(client)).toEqual([...META, 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
    });
  });

  describe('when hldp mcp is started with --toolsets', () => {
    it('lists only those toolsets over stdio, and refuses an unknown one with exit 2', async () => {
      const connected = await connectStdio('native-repo', ['--toolsets', 'ops']);
      cleanups.push(connected.close);
      expect(await listedNames(connected.client)).toEqual([...META, 'http-request', 'shell-exec']);
      const temp = await makeTempDir();
      cleanups.push(temp.cleanup);
      const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') };
      const refused = await runCli(['mcp', '--repo', 'native-repo', '--toolsets', 'nope'], { input: '', env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--toolsets: no toolset nope; available: ops, repo');
    });
  });

  describe('when the client enables another toolset', () => {
    it('sends list_changed and lists the new tools; enabling again only extends it', async () => {
      const { server } = await serve();
      const { client, changes } = await connect(`${server.url}/mcp?toolsets=repo`);
      await listedNames(client);
      const changed = changes.next();
      const enabled = await call(client, 'toolset', { action: 'enable', name: 'ops' });
      expect(enabled.isError).toBeFalsy();
      expect(textOf(enabled)).toMatch(/^toolset 'ops' is active for 10 minutes after the last call of one of its tools\.\nIts tools:\n- http-request\(path, method\?, query\?\) — .*\n- shell-exec\(cmd, cwd\?\) — .*\nHint: shell-exec runs one command/);
      await changed;
      expect(await listedNames(client)).toEqual([...META, 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
      const again = await call(client, 'toolset', { action: 'enable', name: 'ops' });
      expect(textOf(again)).toMatch(/^toolset 'ops' is already active; its timeout is extended/);
      expect(changes.count).toBe(1);
    });

    it('answers the forgiving messages of seed 000', async () => {
      const { server } = await serve();
      const { client } = await connect(`${server.url}/mcp`);
      const none = await call(client, 'toolset', { action: 'disable' });
      expect(none.isError).toBeFalsy();
      expect(textOf(none)).toBe('no active toolsets');
      const unknown = await call(client, 'toolset', { action: 'enable', name: 'media' });
      expect(textOf(unknown)).toBe('no toolset media; available: ops, repo');
    });
  });

  describe('when a client never lists the tools again', () => {
    it('runs a tool of a newly enabled toolset with tool_call', async () => {
      const { server } = await serve();
      const { client } = await connect(`${server.url}/mcp?toolsets=repo`);
      await call(client, 'toolset', { action: 'enable', name: 'ops' });
      const result = await call(client, 'tool_call', { name: 'shell-exec', params: { cmd: 'echo via tool_call' } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe('via tool_call\n');
    });
  });

  describe('when two clients have sessions at once', () => {
    it('keeps what one enables out of the other', async () => {
      const { server } = await serve();
      const first = await connect(`${server.url}/mcp?toolsets=repo`);
      const second = await connect(`${server.url}/mcp?toolsets=repo`);
      await listedNames(second.client);
      await call(first.client, 'toolset', { action: 'enable', name: 'ops' });
      expect(await listedNames(first.client)).toContain('shell-exec');
      expect(await listedNames(second.client)).not.toContain('shell-exec');
      expect(second.changes.count).toBe(0);
    });
  });

  describe('when time passes (injected clock)', () => {
    it('expires a toolset 10 minutes after the last call of one of its tools', async () => {
      const { server, clock } = await serve();
      const { client } = await connect(`${server.url}/mcp?toolsets=repo`);
      await call(client, 'toolset', { action: 'enable', name: 'ops' });
      clock.advance(TEN_MINUTES - 60_000);
      expect(textOf(await call(client, 'shell-exec', { cmd: 'echo still here' }))).toBe('still here\n');
      // the call moved the deadline: 10 minutes from it, not from the enable
      clock.advance(TEN_MINUTES - 60_000);
      expect(await listedNames(client)).toContain('shell-exec');
      clock.advance(60_001);
      expect(await listedNames(client)).toEqual([...META, 'file-read', 'file-write', 'git-ops']);
    });
  });

  describe('when the client calls a reserved tool directly', () => {
    it('enables its toolset and answers that the call has NOT run; the second call runs', async () => {
      const { server } = await serve();
      const { client, changes } = await connect(`${server.url}/mcp?toolsets=repo`);
      await listedNames(client);
      const changed = changes.next();
      const substituted = await call(client, 'shell-exec', { cmd: 'echo ran' });
      expect(substituted.isError).toBeFalsy();
      expect(substituted.structuredContent).toMatchObject({ code: 'CALL_NOT_RUN', ran: false, toolset: 'ops' });
      expect(textOf(substituted)).toMatch(/^toolset 'ops' is now active\.\nTools:\n- http-request\(path, method\?, query\?\) — .*\n- shell-exec\(cmd, cwd\?\) — .*\nThe call to 'shell-exec' has NOT run yet: call 'shell-exec' again with its arguments to run it\.$/);
      expect(await server.gateway.receipts()).toEqual([]);
      await changed;
      expect(textOf(await call(client, 'shell-exec', { cmd: 'echo ran' }))).toBe('ran\n');
      expect(await server.gateway.receipts()).toHaveLength(1);
    });

    it('runs it once at once under policy run, when its params are valid', async () => {
      const { server } = await serve({ sessions: { reservedCalls: 'run' } });
      const { client } = await connect(`${server.url}/mcp?toolsets=repo`);
      const result = await call(client, 'shell-exec', { cmd: 'echo once' });
      expect(result.content[0]).toMatchObject({ type: 'text', text: 'once\n' });
      expect(textOf(result)).toContain("(toolset 'ops' was enabled to run this call)");
      expect((await server.gateway.receipts()).map((receipt) => receipt.output)).toEqual(['once\n']);
      // invalid params are not run blindly: the substitution answers instead
      const invalid = await call(client, 'http-request', { nope: 1 });
      expect(invalid.isError).toBeTruthy();
      expect(await server.gateway.receipts()).toHaveLength(1);
    });
  });

  describe('when a tool is loaded with tool_load', () => {
    it('lists it for the turn and leaves the active toolsets as they were', async () => {
      const { server } = await serve();
      const { client } = await connect(`${server.url}/mcp?toolsets=repo`);
      const loaded = await call(client, 'tool_load', { name: 'shell-exec' });
      expect(textOf(loaded)).toMatch(/^loaded for this turn \(the active toolsets are unchanged\): shell-exec\n- shell-exec\(cmd, cwd\?\)/);
      expect(await listedNames(client)).toEqual([...META, 'file-read', 'file-write', 'git-ops', 'shell-exec']);
      const listing = await call(client, 'toolset', { action: 'list' });
      expect(listing.structuredContent).toMatchObject({ toolsets: [{ name: 'ops', active: false }, { name: 'repo', active: true }] });
    });
  });

  describe('when a skill leads to a toolset', () => {
    it('leaves the skill index (resources/list) while that toolset is active, and is still readable', async () => {
      const { server } = await serve();
      const { client } = await connect(`${server.url}/mcp`);
      const names = async () => (await client.listResources()).resources.map((resource) => resource.name);
      expect(await names()).toEqual(['repository-history', 'server-ops']);
      await call(client, 'toolset', { action: 'enable', name: 'repo' });
      expect(await names()).toEqual(['server-ops']);
      const read = await client.readResource({ uri: 'skill://repository-history' });
      expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: expect.stringMatching(/^# Reading a repository's history/) });
      expect(textOf(await call(client, 'read_skill', { name: 'server-ops' }))).toMatch(/^# Looking at a server/);
    });
  });

  describe('when the rights layer forbids a tool', () => {
    it('neither lists nor runs it, and says why', async () => {
      const { server } = await serve({ sessions: { deny: ['shell-exec'] } });
      const { client } = await connect(`${server.url}/mcp`);
      expect(await listedNames(client)).not.toContain('shell-exec');
      const refused = await call(client, 'tool_call', { name: 'shell-exec', params: { cmd: 'echo no' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe("'shell-exec' is forbidden: 'shell-exec' is on the gateway's deny list (sessions.deny in the config)");
      expect(await server.gateway.receipts()).toEqual([]);
    });
  });

  describe('when a rescan changes one toolset', () => {
    it('sends list_changed only to the sessions whose listed tools changed', async () => {
      const temp = await makeTempDir();
      cleanups.push(temp.cleanup);
      const repo = await initRepository(join(temp.path, 'repo'));
      const echo = (name: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }` });
      const toolset = (name: string, tools: string) => `name: ${name}\ndescription: set ${name}\ntools: ${tools}\nauthor: T\nwhy: test\n`;
      await commitFiles(repo, {
        'tools/a/TOOL.hdlp': echo('a'), 'tools/b/TOOL.hdlp': echo('b'), 'tools/c/TOOL.hdlp': echo('c'),
        'toolsets/one/TOOLSET.hdlp': toolset('one', '[a]'), 'toolsets/two/TOOLSET.hdlp': toolset('two', '[b]'),
      });
      const { server } = await serve({}, repo);
      const one = await connect(`${server.url}/mcp?toolsets=one`);
      const two = await connect(`${server.url}/mcp?toolsets=two`);
      expect(await listedNames(one.client)).toEqual([...META, 'a']);
      expect(await listedNames(two.client)).toEqual([...META, 'b']);
      const changed = one.changes.next();
      await commitFiles(repo, { 'toolsets/one/TOOLSET.hdlp': toolset('one', '[a, c]') });
      expect(await server.gateway.rescan()).toMatchObject({ changed: true });
      await changed;
      expect(await listedNames(one.client)).toEqual([...META, 'a', 'c']);
      // a round trip on the other session: its stream has had every chance to carry a notification
      expect(await listedNames(two.client)).toEqual([...META, 'b']);
      expect(two.changes.count).toBe(0);
    });
  });
});
