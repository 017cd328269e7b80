import { afterEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { callTool, connectHttp, connectStdio, firstText, type Connected } from './support.js';

// review W, W6: tool_load of a tool whose TOOL.hdlp is broken said "no tool or group 'bs2'; did you mean 'big'?"
// while a call of the same name answered TOOL_BROKEN with the file:line to fix

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function brokenRepository(): Promise<string> {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  await initRepository(temp.path);
  await commitFiles(temp.path, {
    'tools/big/TOOL.hdlp': makeToolYaml('big', { executor: 'shell', method: 'run', shell: '{ argv: [echo, big] }' }),
    'tools/bs2/TOOL.hdlp': makeToolYaml('bs2', { executor: 'nowhere', method: 'run' }),
  });
  return temp.path;
}

describe.each([
  ['stdio', (repo: string) => connectStdio(repo)],
  ['/mcp', (repo: string) => connectHttp(repo)],
] as Array<[string, (repo: string) => Promise<Connected>]>)('tool_load of a broken tool over %s', (_front, connect) => {
  it('answers TOOL_BROKEN with the file:line to fix, as tool_call does, and names no other tool', async () => {
    const connected = await connect(await brokenRepository());
    cleanups.push(() => connected.close());
    const loaded = await callTool(connected.client, 'tool_load', { name: 'bs2' });
    const called = await callTool(connected.client, 'tool_call', { name: 'bs2', params: {} });
    expect(loaded.isError).toBe(true);
    expect(called.isError).toBe(true);
    expect(loaded.structuredContent).toMatchObject({ code: 'TOOL_BROKEN', tool: 'bs2', diagnostics: [{ file: 'tools/bs2/TOOL.hdlp' }] });
    expect(called.structuredContent).toMatchObject({ code: 'TOOL_BROKEN' });
    const text = firstText(loaded);
    expect(text).toMatch(/tools\/bs2\/TOOL\.hdlp:\d+:\d+: .*executor/);
    expect(text).not.toContain("'big'");
    // a name with no file at all is still a missing one
    expect((await callTool(connected.client, 'tool_load', { name: 'bs3' })).structuredContent).toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });
});
