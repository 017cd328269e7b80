// params14: ajv compiles a tool's params schema on the event loop at the tool's first call. A pushed definition whose
// list holds 2,000 checks (`items: {allOf: [...]}`) took ~1 s of CPU to compile, during which a real `hldp serve`
// answered neither /healthz nor any other caller; 100 such tools, 100 such stalls. The scanner now counts what ajv
// would compile and refuses a schema past the bound at the line to cut (COSTLY_PARAMS_SCHEMA), so the call is answered
// as the definition is, and no compile holds the loop. On the old code the call is served (200) after the stall.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { callWithProbe, schemaTool } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

function listOfChecks(name: string, checks: number): string {
  const allOf = Array.from({ length: checks }, (_, index) => `{type: integer, minimum: ${index - checks}}`).join(', ');
  return schemaTool(name, 'sums a list of numbers', ['type: object', 'properties:', '  xs:', '    type: array', '    items:', `      allOf: [${allOf}]`]);
}

describe('hldp serve', () => {
  describe('when a pushed definition holds 2,000 checks for each item of a list', () => {
    it('refuses it at the line of the checks, with the count and the bound, and answers /healthz beside its call', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/sum-many/TOOL.hdlp': listOfChecks('sum-many', 2_000), 'tools/sum-few/TOOL.hdlp': listOfChecks('sum-few', 20) });
      const server = await home.serve(['--repo', repo]);
      const { call, healthz } = await callWithProbe(server.url, JSON.stringify({ tool: 'sum-many', params: { xs: [1, 2, 3] } }));
      expect(healthz).toBe(200);
      expect(call.status).toBe(409);
      expect(call.json).toMatchObject({ code: 'TOOL_BROKEN', tool: 'sum-many' });
      const diagnostics = call.json['diagnostics'] as Array<Record<string, unknown>>;
      expect(diagnostics).toContainEqual(expect.objectContaining({ file: 'tools/sum-many/TOOL.hdlp', line: 12, code: 'COSTLY_PARAMS_SCHEMA', severity: 'error' }));
      const message = JSON.stringify(diagnostics);
      expect(message).toMatch(/the params schema takes [\d,]+ units to compile, more than the 500 a tool's may take; 'params_schema\.properties\.xs\.items\.allOf' holds [\d,]+ of them/);
    });

    it('still serves a list of 20 checks, compiled at its first call', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/sum-many/TOOL.hdlp': listOfChecks('sum-many', 2_000), 'tools/sum-few/TOOL.hdlp': listOfChecks('sum-few', 20) });
      const server = await home.serve(['--repo', repo]);
      const { call, healthz } = await callWithProbe(server.url, JSON.stringify({ tool: 'sum-few', params: { xs: [1, 2, 3] } }));
      expect(healthz).toBe(200);
      expect(call.status).toBe(200);
      expect(call.json).toMatchObject({ tool: 'sum-few', ok: true });
    });
  });
});
