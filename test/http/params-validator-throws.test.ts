// Found by helper ref12 (2026-12-05): ajv's compiled validator for some schemas throws on some params instead of
// answering (`TypeError: Cannot set properties of undefined (setting 'k')`: a patternProperties key reached through
// oneOf into a schema whose additionalProperties is false). A call with such params must still get a clear 4xx that
// names the definition, and the gateway must go on serving — never a 500 without a word of why, nor a crash.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { schemaTool } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const THROWING = schemaTool('odd-keys', 'reads nested keys', [
  'type: object',
  'properties:',
  "  tree: {$ref: '#/$defs/n0'}",
  '$defs:',
  "  n0: {patternProperties: {'^k': {$ref: '#/$defs/n0'}}, oneOf: [{$ref: '#/$defs/n1'}]}",
  "  n1: {patternProperties: {'^k': {$ref: '#/$defs/n2'}}}",
  '  n2: {additionalProperties: false}',
]);

describe('hldp serve, when a tool\'s params validator throws on a call\'s params', () => {
  it('answers the call 422 naming the definition, and serves the next request', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/odd-keys/TOOL.hdlp': THROWING });
    const server = await home.serve(['--repo', repo]);
    const call = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'odd-keys', params: { tree: { k: { k: 1 } } } }) });
    const answer = (await call.json()) as Record<string, unknown>;
    expect({ status: call.status, code: answer.code }).toEqual({ status: 422, code: 'INVALID_PARAMS' });
    expect(String(answer.error)).toMatch(/the params schema of 'odd-keys' cannot check these params .*fix its TOOL\.hdlp/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const fine = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'odd-keys', params: { tree: {} } }) });
    expect(fine.status).toBe(200);
  });
});
