// Review X, X1 and X2: ajv checks a call's params on the event loop, and two definitions that `hldp validate` passes
// made one call hold a real `hldp serve` — /healthz and every other principal's requests — for tens of seconds:
// X1, a `pattern` whose RE2 program keeps ~1,000 threads alive per character (`a[ab]{999}c`: 300 KB took 21 s, and
// `maxLength: 64` did not stop it, as ajv checks every keyword); X2, `items: {allOf: [2,000 checks]}`, each applied to
// every item (50,000 items under `maxItems: 10` took 29 s). Each test sends such a call, ~1 MiB, and, once its body is
// sent, a /healthz: both must be answered (on the old code neither is within the test's bound: minutes of work).
// Since params14 the scanner refuses a schema of 2,000 checks outright (it took ~1 s to compile: compile-cost-held-
// gateway.test.ts); 60 checks, under that bound, applied to 480,000 items are still ~29 million checks past the budget.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { callWithProbe } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const findId = (limits: string): string =>
  makeToolYaml('find-id', {
    intent: 'looks a record up by its id',
    method: 'run',
    executor: 'shell',
    params_schema: `\n  id: {type: string, required: true, pattern: 'a[ab]{999}c'${limits}, description: the record id}`,
    shell: "\n  argv: ['true']",
  });

const CHECKS = JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ minimum: -i - 1 })));
const sumAll = (limits: string): string =>
  makeToolYaml('sum-all', {
    intent: 'adds a list of numbers up',
    method: 'run',
    executor: 'shell',
    params_schema: `\n  xs: {type: array, required: true${limits}, items: {allOf: ${CHECKS}}, description: the numbers}`,
    shell: "\n  argv: ['true']",
  });


async function serve(file: string, definition: string): Promise<string> {
  const repo = await initRepository(join(home.path, 'repo'));
  await commitFiles(repo, { [file]: definition });
  return (await home.serve(['--repo', repo])).url;
}

describe('hldp serve, one call against a costly params check', () => {
  it('refuses a ~1 MiB string for a pattern of ~1,000 RE2 threads as too costly, naming it, and answers /healthz', async () => {
    const url = await serve('tools/find-id/TOOL.hdlp', findId(''));
    const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: 'find-id', params: { id: `c${'a'.repeat(1_000_000)}` } }));
    expect(healthz).toBe(200);
    expect(call.status).toBe(422);
    expect(call.json).toMatchObject({ code: 'INVALID_PARAMS', problems: [{ param: 'id', message: expect.stringContaining('is too costly to check') }] });
    expect(call.json['error']).toContain('a[ab]{999}c');
  });

  it('answers a string longer than its maxLength by its length, without running the pattern', async () => {
    const url = await serve('tools/find-id/TOOL.hdlp', findId(', maxLength: 64'));
    const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: 'find-id', params: { id: `c${'a'.repeat(1_000_000)}` } }));
    expect(healthz).toBe(200);
    expect(call.status).toBe(422);
    expect(call.json['problems']).toEqual([{ param: 'id', message: 'must NOT have more than 64 characters' }]);
  });

  it('refuses 480,000 items that would each get 60 checks as too costly, and answers /healthz', async () => {
    const url = await serve('tools/sum-all/TOOL.hdlp', sumAll(''));
    const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: 'sum-all', params: { xs: Array(480_000).fill(0) } }));
    expect(healthz).toBe(200);
    expect(call.status).toBe(422);
    expect(call.json).toMatchObject({ code: 'INVALID_PARAMS', problems: [{ param: 'xs', message: expect.stringContaining('is too costly to check') }] });
  });

  it('answers a list longer than its maxItems by its length, and still runs a call that fits', async () => {
    const url = await serve('tools/sum-all/TOOL.hdlp', sumAll(', maxItems: 10'));
    const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: 'sum-all', params: { xs: Array(480_000).fill(0) } }));
    expect(healthz).toBe(200);
    expect(call.status).toBe(422);
    expect(call.json['problems']).toEqual([{ param: 'xs', message: 'must NOT have more than 10 items' }]);
    const fits = await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'sum-all', params: { xs: [1, 2, 3] } }) });
    expect(fits.status).toBe(200);
  });
});
