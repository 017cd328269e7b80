import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';

// Review userX, X1: a call of a name the registry lacks was told to write a tool under another name (`get_weather` →
// "no tool named 'weather' … tools/weather"), and, among an imported server's tools, whose names share a long
// `mcp_<server>_` prefix, a removed `mcp_every_get-sum` was told to call `mcp_every_get-env` as its typo: a tool that
// prints the server's environment.

let temp: { path: string; cleanup: () => Promise<void> };
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = join(temp.path, 'repo');
  const tool = (name: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }' });
  await writeFiles(repo, {
    'tools/mcp_every_get-env/TOOL.hdlp': tool('mcp_every_get-env'),
    'tools/mcp_every_echo/TOOL.hdlp': tool('mcp_every_echo'),
    'tools/shell-exec/TOOL.hdlp': tool('shell-exec'),
  });
  server = await startTestServer(repo);
});
afterAll(async () => {
  await server.cleanup();
  await temp.cleanup();
});

const call = async (tool: string): Promise<Record<string, unknown>> => (await request(server, 'POST', '/v1/call', { body: { tool, params: {} } })).json;

describe('the suggestion for a name no tool has', () => {
  it('keeps the name the agent called when a tool may be named so', async () => {
    const answer = await call('get_weather');
    expect(answer).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    expect(answer.suggestion).toMatch(/no tool named 'get_weather' is in the repository yet; write its definition at tools\/get_weather\/TOOL\.hdlp \(name: get_weather\)/);
  });

  it('says a name no tool may have is not one, and offers one that may be', async () => {
    const answer = await call('send the email!');
    expect(answer.suggestion).toMatch(/no tool named 'send the email!' is in the repository, and a tool cannot be named so .*tools\/send-email\/TOOL\.hdlp \(name: send-email\)/);
  });

  it('does not offer a tool that differs by a whole word as a typo, though their long prefix is shared', async () => {
    const answer = await call('mcp_every_get-sum');
    expect(answer.suggestion).not.toMatch(/call 'mcp_every_get-env'/);
    expect(answer.suggestion).toMatch(/^此工具尚不在仓库中.*tools\/mcp_every_get-sum\/TOOL\.hdlp/);
  });

  it('still offers the tool a misspelt name meant', async () => {
    expect((await call('shel-exec')).suggestion).toMatch(/^call 'shell-exec', the registered tool spelled like 'shel-exec'/);
    expect((await call('mcp_every_ecko')).suggestion).toMatch(/^call 'mcp_every_echo', the registered tool spelled like 'mcp_every_ecko'/);
    expect((await call('shellexec')).suggestion).toMatch(/^call 'shell-exec'/);
  });
});
