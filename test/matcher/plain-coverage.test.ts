import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { createMatcher, type Matcher } from '../../src/matcher/index.js';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { scanStarterTools } from './helpers.js';

// Issue #11: the re-rank weighed a request's words only by their rarity in the registry, so one word a single tool
// happens to have outweighed the rest of the request: `RESTエンドポイントを呼び出して` (call the REST endpoint) put
// file-read first, by one word among its parameters, before http-request, which has more of what was asked. The
// share of the request's words a tool has, each counting one, now weighs in too (`plainCoverage`, fitted on BFCL's
// even half). These requests are answered found: false (the borrowed words are not evidence enough), so what a user
// sees is the order of the tools offered as near misses.
const firstOffered = (result: MatchResult): string | undefined => (result.found ? result.candidates[0]?.name : result.near[0]?.name);

describe('hldp match when a request shares one word with one tool and more of its words with another', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(() => temp.cleanup());

  it('offers the tool that has more of the request first', async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') };
    const run = await runCli(['match', 'このRESTエンドポイントを呼び出してください', '--json'], { env, cwd: temp.path });
    expect(firstOffered(JSON.parse(run.stdout) as MatchResult)).toBe('http-request');
  });
});

describe('matchIntent over the starter tools', () => {
  let matcher: Matcher;
  beforeAll(async () => {
    matcher = await createMatcher(await scanStarterTools()).ready();
  });

  it.each([
    ['このRESTエンドポイントを呼び出してください', 'http-request'],
    ['RESTエンドポイントを呼び出してください', 'http-request'],
  ])('offers for %s %s first', (request, tool) => {
    expect(firstOffered(matcher.matchIntent(request))).toBe(tool);
  });

  it.each([
    ['エンドポイントを呼び出して', 'http-request'],
    ['show the last commits on this branch', 'git-ops'],
    ['read the config file and print its contents', 'file-read'],
    ['run a shell command to check disk space', 'shell-exec'],
  ])('still offers for %s %s first', (request, tool) => {
    expect(firstOffered(matcher.matchIntent(request))).toBe(tool);
  });
});
