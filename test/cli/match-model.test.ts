import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChatCompletionsServer, type ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { openTestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { loadLexicon } from '../../src/matcher/index.js';
import { openSqliteStore } from '../../src/store/index.js';

// no starter tool says "authored" or "edit": the words match nothing
const INTENT = 'who authored the latest edit';

let temp: { path: string; cleanup: () => Promise<void> };
let server: ChatCompletionsServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  temp = await makeTempDir();
  server = await startChatCompletionsServer((request) => (request.prompt.includes(INTENT) ? '{"tools": ["git-ops"]}' : '{"tools": []}'));
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') };
});
afterEach(async () => {
  await server.close();
  await temp.cleanup();
});

describe('hldp match with matcher.model, against a local server implementing the OpenAI chat-completions contract', () => {
  it('exits 0 with the tool the model named where the words alone found nothing', async () => {
    const plain = await runCli(['match', INTENT, '--json'], { env });
    expect(plain.code).toBe(1);
    const config = join(temp.path, 'hldp.yaml');
    await writeFile(config, `matcher:\n  model: { url: "${server.url}", model: tiny-model, timeout_ms: 5000 }\n`);
    const run = await runCli(['match', INTENT, '--json', '--config', config], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ found: true, stage: 'model', confidence: 'low', candidates: [{ name: 'git-ops' }] });
    expect(server.requests).toHaveLength(1);
  });

  it('exits 1 with the lexical answer and says why when the endpoint is down', async () => {
    await server.close();
    const run = await runCli(['match', INTENT], { env: { ...env, HLDP_MATCHER_MODEL_URL: server.url, HLDP_MATCHER_MODEL: 'tiny-model' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^no tool found\./);
    expect(run.stderr).toMatch(/the model stage failed \(the model endpoint failed: .*\); answering from the words alone/);
  });
});

describe('Gateway.match with matcher.model, against a local server implementing the OpenAI chat-completions contract', () => {
  it('answers with the stage that named the candidates, and asks the model once per request and commit', async () => {
    const opened = await openTestGateway('native-repo', { HLDP_MATCHER_MODEL_URL: server.url, HLDP_MATCHER_MODEL: 'tiny-model', HLDP_MATCHER_MODEL_TOKEN: 'model-token-0123456789' });
    try {
      const { gateway } = opened;
      expect(await gateway.match(INTENT)).toMatchObject({ found: true, stage: 'model', candidates: [{ name: 'git-ops' }] });
      expect(await gateway.match(INTENT)).toMatchObject({ stage: 'model' });
      // the dictionary read first: a Chinese answer made while it is read is never high (userZ7 F9), and the model is asked
      await loadLexicon();
      expect(await gateway.match('查看最近的提交记录')).toMatchObject({ stage: 'lexical', confidence: 'high' });
      expect(server.requests.map((request) => request.headers.authorization)).toEqual(['Bearer model-token-0123456789']);
    } finally {
      await opened.cleanup();
    }
  });

  it('sends neither the model endpoint nor the stored usage events a secret pasted into the request', async () => {
    const secret = 'principal-token-0123456789abcdef';
    const opened = await openTestGateway('native-repo', { HLDP_MATCHER_MODEL_URL: server.url, HLDP_MATCHER_MODEL: 'tiny-model', HLDP_API_TOKEN: secret });
    try {
      const { gateway } = opened;
      // the admin's session (api_token is the admin principal's token)
      const session = await gateway.sessions.open({ principal: 'admin' });
      if (!session.ok) throw new Error(session.message);
      expect(await gateway.match(`${INTENT} with ${secret}`, { session: session.session })).toMatchObject({ found: true, stage: 'model' });
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.prompt).toContain(`${INTENT} with [REDACTED]`);
      expect(JSON.stringify(server.requests[0]!.body)).not.toContain(secret);
      await gateway.close();
      const store = openSqliteStore({ path: gateway.config.receiptsDb });
      try {
        const events = await store.usage.list();
        expect(events).toEqual([expect.objectContaining({ kind: 'match', intent: `${INTENT} with [REDACTED]` })]);
      } finally {
        await store.close();
      }
    } finally {
      await opened.cleanup();
    }
  });
});
