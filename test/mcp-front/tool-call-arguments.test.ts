import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { callTool, connectStdio, firstText, type Connected } from './support.js';

// Review userZ7, F11: a model trained on MCP writes tool_call {name, arguments}, MCP's own word; it was refused
// ("'arguments' is not a parameter of this tool") and the agent spent a turn. `arguments` is now params' synonym.

let temp: { path: string; cleanup: () => Promise<void> };
let connected: Connected;
beforeAll(async () => {
  temp = await makeTempDir('hldp-f11-');
  await initRepository(temp.path);
  await commitFiles(temp.path, {
    'tools/echo-word/TOOL.hdlp': makeToolYaml('echo-word', { executor: 'shell', method: 'run', params_schema: '{ word: { type: string, required: true } }', shell: '{ argv: [echo, "{word}"] }' }),
  });
  connected = await connectStdio(temp.path);
}, 120_000);
afterAll(async () => {
  await connected?.close();
  await temp?.cleanup();
});

describe('tool_call over hldp mcp (stdio)', () => {
  it('runs the tool with `arguments` as it does with `params`', { timeout: 60_000 }, async () => {
    const byArguments = await callTool(connected.client, 'tool_call', { name: 'echo-word', arguments: { word: 'Oslo' } });
    expect(byArguments.isError ?? false, firstText(byArguments)).toBe(false);
    expect(firstText(byArguments)).toBe('Oslo\n');
    const byParams = await callTool(connected.client, 'tool_call', { name: 'echo-word', params: { word: 'Oslo' } });
    expect(firstText(byParams)).toBe('Oslo\n');
    const both = await callTool(connected.client, 'tool_call', { name: 'echo-word', params: { word: 'Oslo' }, arguments: { word: 'Oslo' } });
    expect(firstText(both)).toBe('Oslo\n');
    // `params: {}` is its schema's default, which a client filling in defaults sends beside `arguments` (review Z14, Z14-4)
    const defaulted = await callTool(connected.client, 'tool_call', { name: 'echo-word', params: {}, arguments: { word: 'Bergen' } });
    expect(defaulted.isError ?? false, firstText(defaulted)).toBe(false);
    expect(firstText(defaulted)).toBe('Bergen\n');
  });

  it('refuses both when they differ, saying so, and runs nothing', { timeout: 60_000 }, async () => {
    const differing = await callTool(connected.client, 'tool_call', { name: 'echo-word', params: { word: 'Oslo' }, arguments: { word: 'Bergen' } });
    expect(differing.isError).toBe(true);
    expect(firstText(differing)).toContain("'params' and 'arguments' are the same thing (the tool's arguments) and differ here; give one of them");
    expect(differing.structuredContent).toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('says in its schema that arguments is the same as params', { timeout: 60_000 }, async () => {
    const listed = (await connected.client.listTools()).tools.find((tool) => tool.name === 'tool_call');
    expect(listed?.inputSchema.properties).toMatchObject({ params: { type: 'object' }, arguments: { type: 'object', description: expect.stringContaining('the same as params') } });
  });
});
