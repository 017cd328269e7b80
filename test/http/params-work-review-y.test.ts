// Review Y, Y1-Y3: three checks ajv makes on every value that the params work budget did not charge, each of which
// let one call hold a real `hldp serve` (or end it) with a definition `hldp validate` passes: Y1, a map keyword
// (`dependentRequired` of K names, within the compile bound) read whole on every object, even `{}`, charged one unit (26 s); Y2, `uniqueItems`
// making each item's whole text, K times under `allOf` (47 s for 400 KB); Y3, a `default` ajv copies into every value
// that lacks it (a 9 KB default and 90 KB of `{}` filled the heap and the gateway died). Each call must now be refused
// as too costly at once, with /healthz answered beside it and the gateway still serving.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { callWithProbe } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const tool = (name: string, xs: string): string =>
  makeToolYaml(name, { intent: `checks a list for ${name}`, method: 'run', executor: 'shell', params_schema: `\n  xs: {type: array, required: true, ${xs}, description: the values}`, shell: "\n  argv: ['true']" });

const json = (value: unknown): string => JSON.stringify(value);
const DEPENDENT = json(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, ['q']])));
const UNIQUE = json(Array.from({ length: 150 }, () => ({ uniqueItems: true })));
const DEFAULT = json(Array.from({ length: 1_000 }, (_, i) => ({ k: i })));

async function serve(name: string, xs: string): Promise<string> {
  const repo = await initRepository(join(home.path, `repo-${name}`));
  await commitFiles(repo, { [`tools/${name}/TOOL.hdlp`]: tool(name, xs) });
  return (await home.serve(['--repo', repo])).url;
}

async function expectRefusedAndServing(url: string, name: string, xs: unknown[], fits: unknown[]): Promise<void> {
  const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: name, params: { xs } }));
  expect(healthz).toBe(200);
  expect(call.status).toBe(422);
  expect(call.json).toMatchObject({ code: 'INVALID_PARAMS', problems: [{ param: expect.stringMatching(/^xs/), message: expect.stringContaining('is too costly to check') }] });
  const small = await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: name, params: { xs: fits } }) });
  expect(small.status).toBe(200);
}

describe('hldp serve, one call against checks the budget did not count (review Y)', () => {
  it('Y1: charges a dependentRequired of 200 names on each of 100,000 empty objects', async () => {
    const url = await serve('dependent', `items: {type: object, dependentRequired: ${DEPENDENT}}`);
    await expectRefusedAndServing(url, 'dependent', Array.from({ length: 100_000 }, () => ({})), [{}]);
  });

  it('Y2: charges uniqueItems by its items\' texts, 150 times over under allOf', async () => {
    const url = await serve('distinct', `allOf: ${UNIQUE}`);
    await expectRefusedAndServing(url, 'distinct', [Array(200_000).fill(0), 1], [1, 2]);
  });

  it('Y3: charges a 9 KB default by its size for each of 30,000 objects that lack it, and the gateway lives', async () => {
    const url = await serve('defaults', `items: {type: object, properties: {tags: {type: array, default: ${DEFAULT}}}}`);
    await expectRefusedAndServing(url, 'defaults', Array.from({ length: 30_000 }, () => ({})), [{ tags: [] }]);
  });
});
