// Review Z4, F1: at a clash no previous index settles, the history walk asks whether an old TOOL.hdlp declared the
// alias, and parsed that blob whole with `yaml` (no 1 MiB bound, none of the scan's hostile-YAML limits, its bytes not
// counted): a 12 MiB `aliases: [a,a,…]` one commit back (~10 KB in git) took `hldp scan` and `hldp serve` out of heap.
// Now an old file the scan itself would refuse as too large or too costly is history that cannot be read: that clash
// is undecided and neither claim keeps the name; other clashes of the same walk are still settled by history. Real
// repositories built with git, a real `hldp scan` process with an empty cache.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-history-file-bound-');
});
afterEach(() => temp.cleanup());

const tool = (name: string, aliases = '[]'): string => makeToolYaml(name, { intent: `says ${name}`, aliases });

interface ScanAnswer {
  tools: Array<{ name: string }>;
  errors: Array<{ file: string; code: string; message: string }>;
}

async function scan(repo: string): Promise<ScanAnswer> {
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  const run = await runCli(['scan', '--repo', repo, '--json'], { env, timeoutMs: 50_000 });
  expect(run.stderr).not.toMatch(/runCli: killed|heap/);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as ScanAnswer;
}

// a repository where `tools/evil/TOOL.hdlp` was `bomb` one commit back, then declares the alias `newname` as `tools/newname/` is added;
// beside it, a case twin `tools/Deploy/` added after the reviewed `tools/deploy/` (history settles that one)
async function repository(bomb: string): Promise<{ repo: string; bombed: string }> {
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy') }, 'reviewed');
  await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy') }, 'twin');
  const bombed = await commitFiles(repo, { 'tools/evil/TOOL.hdlp': bomb }, 'bomb');
  await commitFiles(repo, { 'tools/evil/TOOL.hdlp': tool('evil', '[newname]'), 'tools/newname/TOOL.hdlp': tool('newname') }, 'evil aliases newname');
  return { repo, bombed };
}

function expectUndecided(answer: ScanAnswer, why: string): void {
  // neither claim keeps `newname`: the tool named so is refused (on main it was served), and evil serves under its own name
  expect(answer.tools.map((one) => one.name)).toEqual(['deploy', 'evil']);
  const refused = answer.errors.filter((error) => error.code === 'DUPLICATE_NAME' && error.file === 'tools/newname/TOOL.hdlp');
  expect(refused).toEqual([expect.objectContaining({ message: expect.stringContaining(`git history could not be read (${why}), so no claim keeps the name: rename or remove one of them`) })]);
  // the twin clash of the same walk is still settled by history
  expect(answer.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'DUPLICATE_NAME', file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining('kept because it held that name first in git history') })]));
}

describe('hldp scan at an alias clash whose old definition is hostile', () => {
  it('does not parse an old TOOL.hdlp over the 1 MiB bound: the clash is undecided and neither claim keeps the name', async () => {
    // just over the bound: on main it was parsed whole (~3 s, ~700 MB at 1 MiB; 12 MiB ran out of heap) and read as
    // "does not declare it", so `tools/newname/` took the name
    const bomb = `aliases: [${'a,'.repeat(512 * 1024 + 16)}a]\n`;
    const { repo, bombed } = await repository(bomb);
    expectUndecided(await scan(repo), `tools/evil/TOOL.hdlp at commit ${bombed.slice(0, 12)} is ${Buffer.byteLength(bomb)} bytes; the limit is 1048576`);
  }, 60_000);

  it('reads an old TOOL.hdlp with the scan\'s hostile-YAML limits: one they refuse leaves the clash undecided', async () => {
    // an alias bomb of a few hundred bytes (10^4 values once expanded): on main parsed with no limit and read as "does not declare it"
    const row = (item: string): string => `[${Array(10).fill(item).join(', ')}]`;
    const bomb = `${tool('evil')}a: &a ${row('x')}\nb: &b ${row('*a')}\nc: &c ${row('*b')}\nd: ${row('*c')}\n`;
    const { repo, bombed } = await repository(bomb);
    expectUndecided(await scan(repo), `tools/evil/TOOL.hdlp at commit ${bombed.slice(0, 12)}: YAML aliases expand too far (an alias bomb); use each anchor a few times at most, or write the values out`);
  }, 60_000);

  it('still reads an old TOOL.hdlp the scan reads: the alias declared first keeps the name', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/evil/TOOL.hdlp': tool('evil', '[newname]') }, 'alias first');
    const added = await commitFiles(repo, { 'tools/newname/TOOL.hdlp': tool('newname') }, 'newname added');
    const answer = await scan(repo);
    expect(answer.tools.map((one) => one.name)).toEqual(['evil']);
    expect(answer.errors).toEqual([expect.objectContaining({ code: 'DUPLICATE_NAME', file: 'tools/newname/TOOL.hdlp', message: expect.stringContaining(`(tools/newname/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) })]);
  }, 60_000);
});
