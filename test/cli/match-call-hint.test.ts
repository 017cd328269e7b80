// Review userZ10, U10-15: `hldp match` printed `params: { city: string }` and then "call one with: hldp call weather
// --params '{...}'"; the hint is now the call to paste, its required params as JSON to fill in.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
beforeAll(async () => {
  temp = await makeTempDir('hldp-match-hint-');
  repo = await initRepository(join(temp.path, 'repo'));
  const schema = `{type: object, properties: {city: {type: string}, "it's": {type: string}, days: {type: integer, minimum: 1}}, required: [city, "it's", days]}`;
  await commitFiles(repo, { 'tools/weather/TOOL.hdlp': makeToolYaml('weather', { display: 'Weather', intent: 'the weather forecast of a city', params_schema: schema }) });
});
afterAll(() => temp.cleanup());

it("hldp match's hint is a call to paste: the required params as JSON, one shell word", async () => {
  const run = await runCli(['match', 'weather forecast of a city', '--repo', repo], { env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path } });
  expect(run.code, run.stderr).toBe(0);
  const hint = run.stdout.split('\n').find((line) => line.startsWith('call one with: '));
  expect(hint).toBe(`call one with: hldp call weather --params '{"city": "…", "it'\\''s": "…", "days": 1}'`);
  // pasted into a shell, the word is the JSON
  const pasted = spawnSync('sh', ['-c', `printf %s ${hint!.slice(hint!.indexOf('--params ') + '--params '.length)}`], { encoding: 'utf8' });
  expect(JSON.parse(pasted.stdout)).toEqual({ city: '…', "it's": '…', days: 1 });
});
