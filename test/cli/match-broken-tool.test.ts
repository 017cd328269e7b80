// Review userZ, Z8: `hldp match` of a request that a broken tool of the repository would fit said "no tool found.
// 此工具尚不在仓库中，需铸渊新建 … write its definition at tools/send-email-team/TOOL.hdlp": a duplicate of what its
// author only needs to fix.
import { afterEach, describe, expect, it } from 'vitest';
import { brokenToolsRepository, EMAIL_REQUEST } from '../helpers/broken-tools.js';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function repository(): Promise<string> {
  const repo = await brokenToolsRepository();
  cleanups.push(repo.cleanup);
  return repo.path;
}

describe('hldp match', () => {
  describe('when a broken tool of the repository would fit the intent', () => {
    it('--json names it with its error, and the suggestion says to fix it rather than write a new one', async () => {
      const run = await runCli(['match', EMAIL_REQUEST, '--repo', await repository(), '--json'], { env: home.env, cwd: home.path });
      expect(run.code).toBe(1);
      const answer = JSON.parse(run.stdout);
      expect(answer).toMatchObject({ found: false, broken: [{ name: 'send-email', path: 'tools/send-email/TOOL.hdlp', error: expect.stringMatching(/^tools\/send-email\/TOOL\.hdlp:\d+:\d+: /) }] });
      expect(answer.broken).toHaveLength(1);
      expect(answer.suggestion).toMatch(/^the tool 'send-email' at tools\/send-email\/TOOL\.hdlp would fit, but its definition is broken, so it is not served: .*; fix it rather than writing a new one/);
    });

    it('names it for a Chinese request too, through the English senses of its words', async () => {
      const run = await runCli(['match', '给团队发送电子邮件', '--repo', await repository(), '--json'], { env: home.env, cwd: home.path });
      expect(JSON.parse(run.stdout)).toMatchObject({ found: false, broken: [{ name: 'send-email' }] });
    });

    it('says so to a person, and offers no broken tool to call', async () => {
      const run = await runCli(['match', 'what is the weather forecast for Paris tomorrow', '--repo', await repository()], { env: home.env, cwd: home.path });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^no tool found\. the tool 'weather-forecast' at tools\/weather-forecast\/TOOL\.hdlp would fit, but its definition is broken/);
      expect(run.stdout).toMatch(/\nbroken, not served \(fix rather than write again\):\n {2}weather-forecast {2}tools\/weather-forecast\/TOOL\.hdlp:\d+:\d+: .*executor/);
      expect(run.stdout).not.toContain('hldp call weather-forecast');
    });
  });

  describe('when no broken tool fits', () => {
    it('answers as before: a served tool that fits, and no broken field', async () => {
      const run = await runCli(['match', 'run a shell command', '--repo', await repository(), '--json'], { env: home.env, cwd: home.path });
      const answer = JSON.parse(run.stdout);
      expect(answer).toMatchObject({ found: true, candidates: [{ name: 'shell-exec' }] });
      expect(answer).not.toHaveProperty('broken');
    });
  });
});
