// Issue #11 (rank20): what a request quotes is a value it gives (a name, a text to work on), not what it asks for, and
// a value is neither translated nor read in another form. A request wrapped whole in quotes was read as nothing but
// values: `hldp match '“删除这个文件”'` (delete this file) over English definitions answered found: false, where the same
// words unquoted find file-delete through the dictionary. The request inside the quotes is now read as the request.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const TOOLS: Record<string, string> = {
  'file-delete': 'delete a file from the disk',
  'file-read': 'read the contents of a file',
  'city-weather': 'rain, snow and wind expected in a city',
  'stock-quote': 'the latest share price of a listed company',
  'music-play': 'play a song on the speakers',
};

let repo: string;
let env: NodeJS.ProcessEnv;
let cleanup: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const temp = await makeTempDir();
  cleanup = temp.cleanup;
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, Object.fromEntries(Object.entries(TOOLS).map(([name, intent]) => [`tools/${name}/TOOL.hdlp`, makeToolYaml(name, { display: name, intent, why: 'an example tool' })])));
});
afterAll(async () => {
  await cleanup?.();
});

async function match(request: string): Promise<MatchResult> {
  const run = await runCli(['match', request, '--repo', repo, '--json'], { env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as MatchResult;
}

describe('hldp match when the whole request is wrapped in quotes', () => {
  it.each(['“删除这个文件”', '"删除这个文件"', '删除这个文件'])('finds for %s the tool it finds for the words unquoted', async (request) => {
    const result = await match(request);
    expect(result.found).toBe(true);
    expect(result.found && result.candidates[0]?.name).toBe('file-delete');
  });
});
