// Task twin14: of two definitions claiming one name (compared case-insensitively) the scan kept the first by path
// order, so a push adding tools/Hello/ (name Hello) took the working `hello` out of service: calls by name ran the
// newcomer (a folder not its name, tools/a-hello/ saying `name: hello`, is refused as NAME_MISMATCH and claims nothing). The definition that served the name at the previous commit now keeps it,
// through a rescan, a restart from the scan cache, and a start onto a commit the cache does not hold. Real processes:
// `hldp serve` over a real git repository, real commits, calls over HTTP.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';

const home = useServiceHome('warn');

const echo = (name: string, said: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${said}] }` });

const ESTABLISHED = { 'tools/hello/TOOL.hdlp': echo('hello', 'the-established-hello') };
// sorts before tools/hello/ (code point order): it took `hello` on main
const NEWCOMERS = { 'tools/Hello/TOOL.hdlp': echo('Hello', 'the-newcomer-Hello') };

async function callHello(server: ServiceProcess): Promise<unknown> {
  const response = await request(server, 'POST', '/v1/call', { body: { tool: 'hello', params: {} } });
  expect(response.status, response.text).toBe(200);
  return (response.json as { output: string }).output;
}

async function duplicates(server: ServiceProcess): Promise<Array<{ file: string; message: string }>> {
  // POST /v1/scan answers the served index's errors (a rescan of an unchanged commit changes nothing)
  const scan = await request(server, 'POST', '/v1/scan');
  return ((scan.json as { errors: Array<{ file: string; code: string; message: string }> }).errors ?? []).filter((error) => error.code === 'DUPLICATE_NAME');
}

describe('a push adding a definition that claims a served name', () => {
  it('leaves the served tool answering calls by name, through the rescan and a restart from the cache', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, ESTABLISHED);
    const server = await home.serve(['--repo', repo]);
    expect(await callHello(server)).toBe('the-established-hello\n');

    await commitFiles(repo, NEWCOMERS, 'two newcomers claim hello');
    expect((await request(server, 'POST', '/v1/scan')).json).toMatchObject({ changed: true });
    expect(await callHello(server)).toBe('the-established-hello\n');
    const reported = await duplicates(server);
    expect(reported).toEqual([expect.objectContaining({ file: 'tools/Hello/TOOL.hdlp', message: expect.stringContaining("tool name 'Hello' is already taken by tools/hello/TOOL.hdlp, kept because it served that name at the previous commit") })]);
    expect(await server.stop()).toBe(0);

    // a restart reads the scan from the cache: the same choice
    const restarted = await home.serve(['--repo', repo]);
    expect(await callHello(restarted)).toBe('the-established-hello\n');
    expect(await duplicates(restarted)).toEqual(reported);
  }, 120_000);

  it('leaves it answering when the push landed while no server ran (a start onto a commit the cache does not hold)', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, ESTABLISHED);
    const first = await home.serve(['--repo', repo]);
    expect(await callHello(first)).toBe('the-established-hello\n');
    expect(await first.stop()).toBe(0);

    await commitFiles(repo, NEWCOMERS, 'two newcomers claim hello while down');
    const restarted = await home.serve(['--repo', repo]);
    expect(await callHello(restarted)).toBe('the-established-hello\n');
    expect(await duplicates(restarted)).toEqual([expect.objectContaining({ file: 'tools/Hello/TOOL.hdlp', message: expect.stringContaining('kept because it served that name at the previous commit') })]);
  }, 120_000);

  it('with no scan before it (no cache), keeps the first by path order, and says so', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { ...ESTABLISHED, ...NEWCOMERS });
    const server = await home.serve(['--repo', repo]);
    const hello = await request(server, 'POST', '/v1/call', { body: { tool: 'Hello', params: {} } });
    expect(hello.json).toMatchObject({ ok: true, output: 'the-newcomer-Hello\n' });
    const twin = await request(server, 'POST', '/v1/call', { body: { tool: 'hello', params: {} } });
    expect(twin.status).toBe(409);
    expect(twin.json).toMatchObject({ code: 'TOOL_BROKEN' });
    expect(await duplicates(server)).toEqual([expect.objectContaining({ file: 'tools/hello/TOOL.hdlp', message: expect.stringContaining('already taken by tools/Hello/TOOL.hdlp, kept because it is the first by path order') })]);
  }, 120_000);
});
