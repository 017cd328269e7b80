import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatCompletionsServer, type ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';

// bot and counter may use git-ops alone (shell-exec, file-read… are forbidden to them); admin may use everything
const BOT = { authorization: 'Bearer bot-token-0123456789abcdef' };
const COUNTER = { authorization: 'Bearer counter-token-0123456789abcdef' };
const ADMIN = { authorization: 'Bearer admin-token-0123456789abcdef' };
// the words find git-ops for it, weakly: the model stage is asked
const WEAK = 'look at the branches on the server please';

let model: ChatCompletionsServer;
let server: Awaited<ReturnType<typeof startTestServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  // the model always prefers the tool that runs any command: the admin's best pick, forbidden to bot and counter
  model = await startChatCompletionsServer(() => '{"tools": ["shell-exec"]}');
  temp = await makeTempDir('hldp-model-callers-');
  const config = join(temp.path, 'brush-holder.yaml');
  await writeFile(config, [
    'principals:',
    '  bot: { roles: [agent], tools: [git-ops] }',
    '  counter: { roles: [agent], tools: [git-ops] }',
    'matcher:',
    `  model: { url: "${model.url}", model: tiny-model, timeout_ms: 2000, per_principal_per_minute: 3 }`,
    '',
  ].join('\n'));
  server = await startTestServer('native-repo', {
    HLDP_CONFIG: config, HLDP_PRINCIPAL_BOT_TOKEN: BOT.authorization.slice(7), HLDP_PRINCIPAL_COUNTER_TOKEN: COUNTER.authorization.slice(7), HLDP_API_TOKEN: ADMIN.authorization.slice(7),
  });
});
afterAll(async () => {
  await server.cleanup();
  await model.close();
  await temp.cleanup();
});

const askedFor = (text: string) => model.requests.filter((sent) => sent.prompt.endsWith(`Request: ${text}`));

describe('the model stage behind POST /v1/match, against a local server implementing the OpenAI chat-completions contract (review L)', () => {
  describe('when the model names a tool the caller may not use', () => {
    it('keeps the lexical candidates the caller may use instead of answering found: false (L3)', async () => {
      const matched = await request(server, 'POST', '/v1/match', { headers: BOT, body: { intent: WEAK } });
      expect(matched.status).toBe(200);
      expect(matched.json).toMatchObject({ found: true, confidence: 'low', stage: 'lexical', candidates: [{ name: 'git-ops' }] });
      expect(matched.text).not.toContain('shell-exec');
    });
  });

  describe('when two principals ask the same text', () => {
    it('lists for the model only the tools each may use, and asks again for the other instead of answering from the first one\'s cache', async () => {
      const text = `${WEAK} today`;
      await request(server, 'POST', '/v1/match', { headers: BOT, body: { intent: text } });
      const [forBot] = askedFor(text);
      expect(forBot!.prompt).toContain('- git-ops');
      for (const withheld of ['shell-exec', 'file-read', 'file-write', 'http-request']) expect(forBot!.prompt).not.toContain(withheld);
      const admin = await request(server, 'POST', '/v1/match', { headers: ADMIN, body: { intent: text } });
      expect(askedFor(text)).toHaveLength(2);
      expect(askedFor(text)[1]!.prompt).toContain('- shell-exec');
      // the words found shell-exec too (weakly: "server"), so the model's naming it puts it first; the words' git-ops
      // stays beside it, never dropped (review Z8, Z8-1)
      expect(admin.json).toMatchObject({ found: true, confidence: 'low', stage: 'model' });
      expect((admin.json.candidates as unknown[])[0]).toMatchObject({ name: 'shell-exec', matched: expect.arrayContaining(['model: tiny-model']) });
      expect((admin.json.candidates as Array<{ name: string; stage?: string }>).map((candidate) => candidate.name)).toContain('git-ops');
      expect((admin.json.candidates as Array<{ stage?: string }>)[0]!.stage).toBeUndefined();
    });
  });

  describe('when one principal sends more distinct weak requests than per_principal_per_minute', () => {
    it('asks the model no more, answering from the words and saying so in incomplete, while other principals are still asked (L8)', async () => {
      const texts = Array.from({ length: 5 }, (_, index) => `${WEAK} zq${index} wibble`);
      const answers = [];
      for (const text of texts) answers.push(await request(server, 'POST', '/v1/match', { headers: COUNTER, body: { intent: text } }));
      expect(texts.map((text) => askedFor(text).length)).toEqual([1, 1, 1, 0, 0]);
      for (const answer of answers) expect(answer.json).toMatchObject({ found: true, stage: 'lexical', candidates: [{ name: 'git-ops' }] });
      expect(answers[2]!.json.incomplete).toBeUndefined();
      expect(answers[3]!.json.incomplete).toMatch(/model stage was not asked: 'counter' asked it 3 times in the last minute \(matcher\.model\.per_principal_per_minute\)/);
      // a cached answer costs no request: the same text again is answered as before, and still counts nothing
      expect((await request(server, 'POST', '/v1/match', { headers: COUNTER, body: { intent: texts[0] } })).json.incomplete).toBeUndefined();
      const other = `${WEAK} from someone else`;
      await request(server, 'POST', '/v1/match', { headers: BOT, body: { intent: other } });
      expect(askedFor(other)).toHaveLength(1);
    });
  });
});
