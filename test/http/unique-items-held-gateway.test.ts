// Review V, V4: a definition's `uniqueItems: true` on an array whose items may be objects or arrays (here: no `items`
// at all) made ajv deep-compare every pair of items on the event loop. One POST /v1/call of 60,000 distinct `[i]`
// (529 KB) held a real `hldp serve` — /healthz and every other principal's calls — for 52 s; a body at the default
// max_body_bytes (1 MiB), as here, ~4 times that. Each test sends such a call and, once its body is sent, a /healthz:
// both must be answered (on the old code neither is, within the test's bound: the gateway is still comparing pairs).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { callWithProbe, schemaTool } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const ITEMS = 110_000;

const TAG_FILES = schemaTool('tag-files', 'tags a list of files', ['files: {type: array, uniqueItems: true, description: the files to tag (each once)}']);

describe('hldp serve', () => {
  describe('when a call sends ~1 MiB of distinct items to a uniqueItems array whose items are not scalars', () => {
    it('answers /healthz and gives the call its receipt', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/tag-files/TOOL.hdlp': TAG_FILES });
      const server = await home.serve(['--repo', repo]);
      const body = JSON.stringify({ tool: 'tag-files', params: { files: Array.from({ length: ITEMS }, (_, i) => [i]) } });
      expect(body.length).toBeLessThan(1024 * 1024);
      const { call, healthz } = await callWithProbe(server.url, body);
      expect(healthz).toBe(200);
      expect(call.status).toBe(200);
      expect(call.json).toMatchObject({ tool: 'tag-files', ok: true });
    });

    it('still refuses two equal items far apart, naming them', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/tag-files/TOOL.hdlp': TAG_FILES });
      const server = await home.serve(['--repo', repo]);
      const count = 20_000;
      const files: unknown[] = Array.from({ length: count }, (_, i) => ({ path: `f${i}`, tags: [i] }));
      files.push({ tags: [0], path: 'f0' });
      const { call, healthz } = await callWithProbe(server.url, JSON.stringify({ tool: 'tag-files', params: { files } }));
      expect(healthz).toBe(200);
      expect(call.status).toBe(422);
      expect(call.json).toMatchObject({ code: 'INVALID_PARAMS', tool: 'tag-files' });
      expect(call.json['error']).toContain(`'files' must NOT have duplicate items (items ## 0 and ${count} are identical)`);
    });
  });
});
