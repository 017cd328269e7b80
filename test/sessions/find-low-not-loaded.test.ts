import { afterEach, describe, expect, it } from 'vitest';
import { api, META, startSessionServer } from './support.js';

// Review U11-2: a tool_find answered `confidence: "low"` (its candidates match only part of the request, and are often
// wrong) loaded them into the session as if found, so the agent's list grew with tools it never chose. A low answer
// offers its candidates (tool_load or tool_call reaches them); only a high one loads them (seed 001: what is found is loaded).
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('tool_find in a session', () => {
  it('offers the candidates of a low answer without loading them, and loads those of a high one', async () => {
    const started = await startSessionServer('native-repo');
    cleanups.push(started.close);
    const base = started.server.url;
    const session = (await api(base, 'POST', '/v1/sessions', { body: { toolsets: ['ops'] } })).body.id as string;
    const names = async (): Promise<string[]> => (await api(base, 'GET', `/v1/sessions/${session}/tools`)).body.tools.map((tool: { name: string }) => tool.name);
    expect(await names()).toEqual([...META, 'http-request', 'shell-exec']);

    const low = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_find', params: { intent: 'count the lines of a log' } } });
    expect(low.body).toMatchObject({ found: true, confidence: 'low' });
    expect(low.body.candidates.map((candidate: { name: string }) => candidate.name).slice(0, 2)).toEqual(['git-ops', 'file-read']);
    expect(low.headers.get('x-hldp-tools-changed')).not.toBe('true');
    expect(await names()).toEqual([...META, 'http-request', 'shell-exec']);

    const high = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_find', params: { intent: 'read the raw contents of one file on the server' } } });
    expect(high.body).toMatchObject({ found: true, confidence: 'high' });
    expect(high.body.candidates[0].name).toBe('file-read');
    expect(high.headers.get('x-hldp-tools-changed')).toBe('true');
    expect(await names()).toContain('file-read');

    // an offered candidate is one tool_load away
    const loaded = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_load', params: { name: 'git-ops' } } });
    expect(loaded.body).toMatchObject({ ok: true });
    expect(await names()).toContain('git-ops');
  });
});
