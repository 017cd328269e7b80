import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryNames } from '../../src/cli/mcp-drafts.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { connectHttp, connectStdio, firstText } from '../mcp-front/support.js';
import { EVERYTHING, FILESYSTEM, nodeServer, writeMcpConfig } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

let temp: string;
let repo: string;
let config: string;
let allowed: string;
let env: NodeJS.ProcessEnv;
let drafts: string[];

beforeAll(async () => {
  const dir = await makeTempDir('hldp-import-');
  cleanups.push(dir.cleanup);
  temp = dir.path;
  allowed = join(temp, 'allowed');
  await mkdir(allowed);
  await writeFile(join(allowed, 'hello.txt'), 'hello from the filesystem server\n');
  repo = await initRepository(join(temp, 'repo'));
  config = await writeMcpConfig(temp, { everything: nodeServer(EVERYTHING), files: nodeServer(FILESYSTEM, [allowed], {}, [allowed]) });
  env = { HLDP_CACHE_DIR: join(temp, 'cache'), HLDP_DATA_DIR: join(temp, 'data'), HLDP_WORKSPACE: temp, HLDP_CONFIG: config };
  const everything = await runCli(['import', 'mcp', '--server', 'everything', '--out', join(repo, 'tools')], { env });
  expect(everything.code, everything.stderr).toBe(0);
  const files = await runCli(['import', 'mcp', '--server', 'files', '--out', join(repo, 'tools'), '--tool', 'read_text_file', '--tool', 'write_file', '--json'], { env });
  expect(files.code, files.stderr).toBe(0);
  expect(JSON.parse(files.stdout).written.map((entry: { name: string }) => entry.name)).toEqual(['mcp_files_read_text_file', 'mcp_files_write_file']);
  drafts = (await readdir(join(repo, 'tools'))).sort();
});

/** What the author does to a draft: author and why filled in (a draft already filled stays as it is). */
async function fillDrafts(): Promise<void> {
  for (const name of drafts) {
    const path = join(repo, 'tools', name, 'TOOL.hdlp');
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace(/^author: "".*$/m, 'author: ICE-GL-ZY001').replace(/^why: "".*$/m, `why: agents need ${name} behind our receipts`));
  }
}

describe('hldp import mcp', () => {
  // review userV, V10: every draft skipped, it still said "0 draft(s) … Fill in author and why in each … commit them"
  it('says no draft was written, not to fill in and commit drafts, when every one exists', async () => {
    const again = await runCli(['import', 'mcp', '--server', 'files', '--out', join(repo, 'tools'), '--tool', 'read_text_file'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('skipped ');
    expect(again.stderr).toContain("no draft written from MCP server 'files': every one exists already (pass --force to refresh what comes from the server).");
    expect(again.stderr).not.toContain('Fill in author');
  });

  it('drafts one TOOL.hdlp per listed tool, named mcp_<server>_<tool>', () => {
    expect(drafts).toContain('mcp_everything_echo');
    expect(drafts).toContain('mcp_everything_trigger-long-running-operation');
    expect(drafts.filter((name) => name.startsWith('mcp_everything_')).length).toBeGreaterThanOrEqual(10);
  });

  it('maps title, description, inputSchema and annotations into the draft', async () => {
    const text = await readFile(join(repo, 'tools', 'mcp_files_write_file', 'TOOL.hdlp'), 'utf8');
    expect(text).toMatch(/^display: Write File$/m);
    expect(text).toMatch(/^intent: Create a new file or completely overwrite an existing file/m);
    expect(text).toMatch(/^mcp:\n {2}server: files\n {2}tool: write_file$/m);
    expect(text).toMatch(/^ {2}require_confirm: true {3}# destructiveHint/m);
    expect(text).not.toMatch(/\$schema/);
    expect(await readFile(join(repo, 'tools', 'mcp_files_read_text_file', 'TOOL.hdlp'), 'utf8')).toMatch(/^ {2}require_confirm: false {3}# the server marks it read-only/m);
  });

  it("says in the draft when the server's params_schema leaves unknown params open (review userZ5, F10)", async () => {
    const text = await readFile(join(repo, 'tools', 'mcp_everything_get-sum', 'TOOL.hdlp'), 'utf8');
    const open = !/^ {2}additionalProperties: false$/m.test(text);
    expect(open).toBe(true);
    expect(text).toContain("# params_schema is the server's inputSchema, which sets no additionalProperties: a call's unknown params pass to the server unchecked");
  });

  it('carries idempotentHint and readOnlyHint as mcp.idempotent, which lets a call be retried after its server died', async () => {
    const draft = (name: string) => readFile(join(repo, 'tools', name, 'TOOL.hdlp'), 'utf8');
    expect(await draft('mcp_files_write_file')).toMatch(/^mcp:\n {2}server: files\n {2}tool: write_file\n {2}idempotent: true {3}# idempotentHint/m);
    expect(await draft('mcp_files_read_text_file')).toMatch(/^ {2}idempotent: true {3}# readOnlyHint/m);
    // readOnlyHint: false, idempotentHint: false (each call toggles): never retried
    expect(await draft('mcp_everything_toggle-simulated-logging')).not.toMatch(/^ {2}idempotent/m);
  });

  it('leaves author and why to the author: validate reports each at file:line:col until they are filled in', async () => {
    const before = await runCli(['validate', join(repo, 'tools')]);
    expect(before.code).toBe(1);
    for (const name of drafts) {
      expect(before.stdout + before.stderr).toMatch(new RegExp(`${name}/TOOL\\.hdlp:\\d+:\\d+: error: 'author' must be filled in`));
      expect(before.stdout + before.stderr).toMatch(new RegExp(`${name}/TOOL\\.hdlp:\\d+:\\d+: error: 'why' must be filled in`));
    }
    await fillDrafts();
    const after = await runCli(['validate', join(repo, 'tools')]);
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });

  it('never overwrites a draft an author already edited, unless --force', async () => {
    const path = join(repo, 'tools', 'mcp_everything_echo', 'TOOL.hdlp');
    const edited = await readFile(path, 'utf8');
    const again = await runCli(['import', 'mcp', '--server', 'everything', '--out', join(repo, 'tools'), '--tool', 'echo'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/skipped .*mcp_everything_echo\/TOOL\.hdlp: it exists \(pass --force to refresh what comes from the server\)/);
    expect(await readFile(path, 'utf8')).toBe(edited);
  });

  // review R, R14: it exited 1, while a config to fix is exit 2 (README)
  it('says which servers are configured when the name is unknown, and exits 2: the config is what to fix', async () => {
    const run = await runCli(['import', 'mcp', '--server', 'nope'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no MCP server named 'nope' in the gateway config \(configured: everything, files\)/);
  });
});

describe('an imported and committed definition', () => {
  beforeAll(async () => {
    // the drafts as the author filled them in, committed: what the gateway serves
    await fillDrafts();
    const files: Record<string, string> = {};
    for (const name of drafts) files[`tools/${name}/TOOL.hdlp`] = await readFile(join(repo, 'tools', name, 'TOOL.hdlp'), 'utf8');
    await commitFiles(repo, files);
  });

  it('runs through POST /v1/call, and its receipt is stored', async () => {
    const server = await startTestServer(repo, { HLDP_CONFIG: config });
    cleanups.push(server.cleanup);
    const called = await request(server, 'POST', '/v1/call', { body: { tool: 'mcp_everything_echo', params: { message: 'over HTTP' } } });
    expect(called.status).toBe(200);
    expect(called.json).toMatchObject({ ok: true, executor: 'mcp', output: 'Echo: over HTTP' });
    expect((await request(server, 'GET', `/v1/receipts/${called.json.id}`)).json).toEqual(called.json);
    const read = await request(server, 'POST', '/v1/call', { body: { tool: 'mcp_files_read_text_file', params: { path: join(allowed, 'hello.txt') } } });
    expect(read.json).toMatchObject({ ok: true, output: 'hello from the filesystem server\n' });
    const write = await request(server, 'POST', '/v1/call', { body: { tool: 'mcp_files_write_file', params: { path: join(allowed, 'new.txt'), content: 'x' } } });
    expect(write.status).toBe(202);
    // the operator's view: both servers started by those calls, each one process
    const health = (await request(server, 'GET', '/healthz')).json as { mcp_servers: Array<{ name: string; transport: string; state: string; pid?: number; restarts: number }> };
    expect(health.mcp_servers).toEqual([
      { name: 'everything', transport: 'stdio', state: 'running', pid: expect.any(Number), restarts: 0, calls_in_flight: 0 },
      { name: 'files', transport: 'stdio', state: 'running', pid: expect.any(Number), restarts: 0, calls_in_flight: 0 },
    ]);
  });

  it('runs through the CLI', async () => {
    const run = await runCli(['call', 'mcp_everything_get-sum', '--repo', repo, '--params', '{"a": 19, "b": 23}'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('The sum of 19 and 23 is 42.');
  });

  it('runs through our own MCP surface (stdio)', async () => {
    const connected = await connectStdio(repo, ['--config', config]);
    cleanups.push(connected.close);
    const { tools } = await connected.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('mcp_everything_echo');
    const result = await connected.client.callTool({ name: 'mcp_everything_echo', arguments: { message: 'over MCP' } });
    expect(firstText(result as never)).toBe('Echo: over MCP');
  });

  it('passes the server’s progress on to our MCP client as progress of its tools/call', async () => {
    const connected = await connectHttp(repo, { HLDP_CONFIG: config });
    cleanups.push(connected.close);
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await connected.client.callTool({ name: 'mcp_everything_trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, undefined, {
      onprogress: ({ progress: value, total }) => progress.push({ progress: value, ...(total === undefined ? {} : { total }) }),
    });
    expect(firstText(result as never)).toBe('Long running operation completed. Duration: 1 seconds, Steps: 4.');
    expect(progress).toEqual([1, 2, 3, 4].map((value) => ({ progress: value, total: 4 })));
  });
});

describe('registry names for remote tools (seed 003)', () => {
  it.each([
    ['a legal name', 'echo', 'mcp_srv_echo'],
    ['dots and spaces', 'files.read all', /^mcp_srv_files_read_all_[0-9a-f]{8}$/],
    ['non-ASCII', 'погода', /^mcp_srv________[0-9a-f]{8}$/],
  ])('keeps or normalises %s into the providers’ alphabet', (_case, remote, expected) => {
    const name = registryNames('srv', [remote]).get(remote)!;
    if (typeof expected === 'string') expect(name).toBe(expected);
    else expect(name).toMatch(expected);
    expect(name).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
  });

  it('cuts a long name to 128 characters with a stable fingerprint, so two names with one start stay apart', () => {
    const long = 'x'.repeat(200);
    const names = registryNames('srv', [`${long}_a`, `${long}_b`]);
    const [first, second] = [names.get(`${long}_a`)!, names.get(`${long}_b`)!];
    expect(first).toHaveLength(128);
    expect(second).toHaveLength(128);
    expect(first).not.toBe(second);
    expect(registryNames('srv', [`${long}_a`]).get(`${long}_a`)).toBe(first);
  });
});
