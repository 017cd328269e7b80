// The errors of a failing call were outside the params work budget (params15). ajv (allErrors) makes an error object
// for each failing check, ~1 µs each where a passing check is nanoseconds, and it copied the whole list so far at each
// failing call of a referenced schema or of the gateway's own `pattern`/`uniqueItems`: on a real `hldp serve`, 40,000
// strings against `items: {pattern: '^a$'}` (160 KB) took 26 s of CPU, and 160,000 items failing 20 `minimum`s each
// (within the budget's 10,000,000 units) 16 s and 1.4 GB of heap, with an answer of 80 MB listing 3.2 million
// problems. Each call must now be refused as too costly at once, /healthz answered beside it, and a failing call that
// fits must still list its problems, at most 100 of them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { callWithProbe, schemaTool } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const tool = (name: string, xs: string): string =>
  makeToolYaml(name, { intent: `checks a list for ${name}`, method: 'run', executor: 'shell', params_schema: `\n  xs: {type: array, required: true, ${xs}, description: the values}`, shell: "\n  argv: ['true']" });

// a referenced schema that itself refers on: ajv calls it as a function, and copied its caller's errors at each failure
const REFERENCED = schemaTool('referenced', 'checks a list of empty strings', [
  'type: object',
  "properties: {xs: {type: array, items: {$ref: '#/$defs/short'}}}",
  '$defs:',
  "  short: {allOf: [{$ref: '#/$defs/empty'}]}",
  '  empty: {type: string, maxLength: 0}',
]);

const MINIMUMS = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ minimum: i + 1 })));

async function serve(name: string, xs: string, definition = tool(name, xs)): Promise<string> {
  const repo = await initRepository(join(home.path, `repo-${name}`));
  await commitFiles(repo, { [`tools/${name}/TOOL.hdlp`]: definition });
  return (await home.serve(['--repo', repo])).url;
}

async function expectRefused(url: string, name: string, xs: unknown[]): Promise<void> {
  const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: name, params: { xs } }));
  expect(healthz).toBe(200);
  expect(call.status).toBe(422);
  expect(call.json).toMatchObject({ code: 'INVALID_PARAMS', problems: [{ param: expect.stringMatching(/^xs/), message: expect.stringContaining('is too costly to check') }] });
}

async function problemsOf(url: string, name: string, xs: unknown[]): Promise<Array<{ param: string; message: string }>> {
  const answer = await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: name, params: { xs } }) });
  expect(answer.status).toBe(422);
  return ((await answer.json()) as { problems: Array<{ param: string; message: string }> }).problems;
}

describe('hldp serve, one call whose checks fail by the hundred thousand', () => {
  it('refuses 200,000 strings that fail a pattern as too costly, and lists 100 of 2,000 failures', async () => {
    const url = await serve('letters', `items: {type: string, pattern: '^a$'}`);
    await expectRefused(url, 'letters', Array(200_000).fill('b'));
    const problems = await problemsOf(url, 'letters', Array(2_000).fill('b'));
    expect(problems).toHaveLength(101);
    expect(problems[0]).toEqual({ param: 'xs.0', message: 'must match pattern "^a$"' });
    expect(problems[100]!.message).toMatch(/^and more: 1,900 failed checks not listed/);
  });

  it('refuses 160,000 items failing 20 checks each as too costly', async () => {
    const url = await serve('minimums', `items: {allOf: ${MINIMUMS}}`);
    await expectRefused(url, 'minimums', Array(160_000).fill(0));
  });

  it('refuses 200,000 items failing a referenced schema as too costly', async () => {
    const url = await serve('referenced', '', REFERENCED);
    await expectRefused(url, 'referenced', Array(200_000).fill('b'));
  });
});
