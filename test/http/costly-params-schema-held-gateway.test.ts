// Review V, V4's leftover (guard11): a params schema whose recursion passes through two branches of `anyOf` makes
// ajv try both branches at each level of params that fail both, so its work doubles per level: 130 bytes nested 18
// deep took 5 s of the event loop, and params may nest 64. One POST /v1/call by any caller held a real `hldp serve`
// — /healthz and every other request — for as long. Each test sends such a call and, once its body is sent, a
// /healthz: both must be answered (on the old code neither is, within the test's bound: ajv is still trying branches).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { callWithProbe, schemaTool } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

// each branch of the anyOf requires a field the params never have, so both fail at every level and both are tried
const BRANCHING = schemaTool('walk-tree', 'walks a tree of nodes', [
  'type: object',
  'properties:',
  "  tree: {$ref: '#/$defs/node'}",
  '$defs:',
  '  node:',
  '    anyOf:',
  "      - {type: object, properties: {next: {$ref: '#/$defs/node'}}, required: [left]}",
  "      - {type: object, properties: {next: {$ref: '#/$defs/node'}}, required: [right]}",
]);

// recursion through one branch at each level: linear, served as before
const SINGLE = schemaTool('walk-list', 'walks a list of nodes', [
  'type: object',
  'properties:',
  "  list: {$ref: '#/$defs/node'}",
  '$defs:',
  '  node:',
  "    anyOf: [{type: 'null'}, {type: object, properties: {next: {$ref: '#/$defs/node'}, left: {$ref: '#/$defs/node'}}}]",
]);

function nested(depth: number, leaf: unknown): unknown {
  let value: unknown = leaf;
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

describe('hldp serve', () => {
  describe('when a definition recurses through two branches of anyOf and a call nests its params 40 deep', () => {
    it('answers /healthz, and the call is refused as the definition is, naming the line to fix', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/walk-tree/TOOL.hdlp': BRANCHING, 'tools/walk-list/TOOL.hdlp': SINGLE });
      const server = await home.serve(['--repo', repo]);
      const body = JSON.stringify({ tool: 'walk-tree', params: { tree: nested(40, 0) } });
      const { call, healthz } = await callWithProbe(server.url, body);
      expect(healthz).toBe(200);
      expect(call.status).toBe(409);
      expect(call.json).toMatchObject({ code: 'TOOL_BROKEN', tool: 'walk-tree' });
      const diagnostics = call.json['diagnostics'] as Array<Record<string, unknown>>;
      expect(diagnostics).toContainEqual(expect.objectContaining({ file: 'tools/walk-tree/TOOL.hdlp', line: 12, code: 'COSTLY_PARAMS_SCHEMA', severity: 'error' }));
      expect(JSON.stringify(diagnostics)).toContain("'params_schema.$defs.node' would be applied more than 16 times to one value");
    });

    it('still serves a schema that recurses through one branch, 60 levels deep', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/walk-tree/TOOL.hdlp': BRANCHING, 'tools/walk-list/TOOL.hdlp': SINGLE });
      const server = await home.serve(['--repo', repo]);
      const { call, healthz } = await callWithProbe(server.url, JSON.stringify({ tool: 'walk-list', params: { list: nested(60, null) } }));
      expect(healthz).toBe(200);
      expect(call.status).toBe(200);
      expect(call.json).toMatchObject({ tool: 'walk-list', ok: true });
    });
  });
});
