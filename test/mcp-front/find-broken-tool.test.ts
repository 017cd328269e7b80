import { afterEach, describe, expect, it } from 'vitest';
import { brokenToolsRepository, EMAIL_REQUEST } from '../helpers/broken-tools.js';
import { callTool, connectHttp, connectStdio, type Connected } from './support.js';

// Review userZ, Z8: tool_find of a request a broken tool of the repository would fit answered found: false and
// "write a new tool", inviting a duplicate of what its author only needs to fix.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe.each([
  ['stdio', (repo: string) => connectStdio(repo)],
  ['/mcp', (repo: string) => connectHttp(repo)],
] as Array<[string, (repo: string) => Promise<Connected>]>)('tool_find over %s', (_front, connect) => {
  it('names the broken tool that would fit, and says to fix it rather than write a new one', async () => {
    const repo = await brokenToolsRepository();
    cleanups.push(repo.cleanup);
    const connected = await connect(repo.path);
    cleanups.push(() => connected.close());
    const found = await callTool(connected.client, 'tool_find', { intent: EMAIL_REQUEST });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ found: false, broken: [{ name: 'send-email', path: 'tools/send-email/TOOL.hdlp' }] });
    expect((found.structuredContent as { suggestion: string }).suggestion).toMatch(/^the tool 'send-email' at tools\/send-email\/TOOL\.hdlp would fit, but its definition is broken.*fix it rather than writing a new one/);
    // nothing broken is listed or loaded
    const listed = await connected.client.listTools();
    expect(listed.tools.map((tool) => tool.name)).not.toContain('send-email');
  });
});
