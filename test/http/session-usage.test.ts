import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suggestExamples } from '../../src/matcher/index.js';
import { git } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer('native-repo');
  // a git repository, so that git-ops status succeeds: only a call that ran successfully is counted (review Z6, Z6-5)
  await git(server.workspace, 'init', '-q');
});
afterAll(() => server.cleanup());

describe('POST /v1/call with X-HLDP-Session', () => {
  describe('when an intent finds nothing and the session then calls a tool', () => {
    it('stores the pair, from which the intent is suggested for that tool', async () => {
      const opened = await request(server, 'POST', '/v1/sessions');
      const headers = { 'X-HLDP-Session': opened.headers.get('X-HLDP-Session')! };
      const asked = await request(server, 'POST', '/v1/call', { body: { intent: 'who wrote this' }, headers });
      expect(asked.json).toMatchObject({ found: false });
      await request(server, 'POST', '/v1/call', { body: { tool: 'git-ops', params: { op: 'status' } }, headers });
      const ranked = await request(server, 'POST', '/v1/call', { body: { intent: 'the file', context: { group: 'nothing-here' } }, headers });
      expect(ranked.json).toMatchObject({ found: true });
      // a usage event is written in the event-loop turn after its answer, long before the client reads it
      const stored = await server.gateway.store.usage.list();
      expect(stored.map((event) => event.kind)).toEqual(['match', 'call', 'match']);
      const [suggestion] = suggestExamples(stored, server.gateway.registry.index);
      expect(suggestion).toMatchObject({ tool: 'git-ops', examples: [{ text: 'who wrote this' }] });
    });
  });
});
