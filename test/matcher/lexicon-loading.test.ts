import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { createMatcher, LEXICON_LOADING, lexiconSettled, loadLexicon } from '../../src/matcher/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// The Chinese-English dictionary takes about a second to read; no request waits for it. A request
// made before it is read is answered from its words as written, and the answer says so.

const WEATHER_IN_CHINESE = '明天上海的天气预报';

function english(name: string, intent: string, examples: string[] = []) {
  return makeToolDefinition({ name, display: name, intent, why: 'agents ask for it', examples });
}

// examples in Chinese make the calibration ask Chinese requests
const WITH_CHINESE_EXAMPLES = [
  english('weather-forecast', 'Get the weather forecast for a city', ['明天会下雨吗', 'what is the weather in Paris', '北京今天多少度']),
  english('delete-file', 'Delete a file from the disk', ['把这个文件删掉', 'remove old.log', '清理临时文件']),
  english('send-email', 'Send an email message to a recipient', ['给老板发邮件', 'mail the report to Anna', '通知团队']),
];

const ENGLISH_TOOLS = [
  english('weather-forecast', 'Get the weather forecast for a city'),
  english('delete-file', 'Delete a file from the disk'),
  english('send-email', 'Send an email message to a recipient'),
];

// this file's module state is its own (vitest isolates test files): nothing has read the dictionary yet
describe('matchIntent before the Chinese-English dictionary is read', () => {
  it('answers a Chinese request at once, from its words as written, saying the answer is incomplete, then in full; a calibration made meanwhile is made again', async () => {
    expect(lexiconSettled()).toBe(false);
    const matcher = createMatcher(makeIndex(ENGLISH_TOOLS));
    const early = matcher.matchIntent(WEATHER_IN_CHINESE);
    expect(early.incomplete).toBe(LEXICON_LOADING);
    // "write the tool" is not said on words that were not all read
    if (!early.found) expect(early.suggestion).toMatch(/^the Chinese-English dictionary was still being read.*ask again/);
    // an English request never waits for, nor mentions, the dictionary
    expect(matcher.matchIntent('delete this file')).not.toHaveProperty('incomplete');

    // a registry with Chinese examples calibrated now measures them without their senses, and says so
    const calibrated = createMatcher(makeIndex(WITH_CHINESE_EXAMPLES));
    expect(calibrated.explainIntent('x').calibration).toMatchObject({ provisional: true });

    await loadLexicon();
    // ... and is measured again once the dictionary is read: as `ready`, which servers and the CLI await, measures it
    const measured = calibrated.explainIntent('x').calibration;
    expect(measured).not.toHaveProperty('provisional');
    expect((await createMatcher(makeIndex(WITH_CHINESE_EXAMPLES)).ready()).explainIntent('x').calibration).toEqual(measured);
    const later = matcher.matchIntent(WEATHER_IN_CHINESE);
    expect(later).not.toHaveProperty('incomplete');
    expect(later).toMatchObject({ found: true, candidates: [{ name: 'weather-forecast' }] });
  });
});

describe('hldp serve over a registry described in English', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let service: ServiceProcess | undefined;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    temp = await makeTempDir();
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
    await writeFiles(join(temp.path, 'repo'), {
      'tools/weather-forecast/TOOL.hdlp': makeToolYaml('weather-forecast', { display: 'weather forecast', intent: 'Get the weather forecast for a city' }),
      'tools/delete-file/TOOL.hdlp': makeToolYaml('delete-file', { display: 'delete file', intent: 'Delete a file from the disk' }),
    });
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await temp.cleanup();
  });

  it('answers its first Chinese request right after start without waiting for the dictionary, and fully once it is read', async () => {
    service = await spawnService(['serve', '--port', '0', '--repo', join(temp.path, 'repo')], env, / at (http:\/\/[\d.:]+)\n/);
    const [first, health] = await Promise.all([
      request(service, 'POST', '/v1/match', { body: { intent: WEATHER_IN_CHINESE } }),
      request(service, 'GET', '/healthz'),
    ]);
    expect(health.status).toBe(200);
    expect(first.status).toBe(200);
    // answered while the dictionary was being read (it is read when the first Chinese request comes)
    expect((first.json as MatchResult).incomplete).toBe(LEXICON_LOADING);
    let answer = first.json as MatchResult;
    for (let asked = 0; answer.incomplete !== undefined && asked < 600; asked++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = (await request(service, 'POST', '/v1/match', { body: { intent: WEATHER_IN_CHINESE } })).json as MatchResult;
    }
    expect(answer).not.toHaveProperty('incomplete');
    expect(answer).toMatchObject({ found: true, candidates: [{ name: 'weather-forecast' }] });
  });

  it('hldp match reads the dictionary before answering a Chinese request', async () => {
    const run = await runCli(['match', WEATHER_IN_CHINESE, '--repo', join(temp.path, 'repo'), '--json'], { env });
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as MatchResult;
    expect(answer).not.toHaveProperty('incomplete');
    expect(answer).toMatchObject({ found: true, candidates: [{ name: 'weather-forecast' }] });
  });
});
