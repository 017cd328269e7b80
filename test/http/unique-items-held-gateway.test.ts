// Review V, V4: a definition's `uniqueItems: true` on an array whose items may be objects or arrays (here: no `items`
// at all) made ajv deep-compare every pair of items on the event loop. One POST /v1/call of 60,000 distinct `[i]`
// (529 KB) held a real `hldp serve` — /healthz and every other principal's calls — for 52 s; a body at the default
// max_body_bytes (1 MiB), as here, ~4 times that. Each test sends such a call and, once its body is sent, a /healthz:
// both must be answered (on the old code neither is, within the test's bound: the gateway is still comparing pairs).
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const ITEMS = 110_000;

const TAG_FILES = makeToolYaml('tag-files', {
  intent: 'tags a list of files',
  method: 'run',
  executor: 'shell',
  params_schema: '\n  files: {type: array, uniqueItems: true, description: the files to tag (each once)}',
  shell: "\n  argv: ['true']",
});

// POSTs the body and, once it is written to the socket, asks /healthz: the two answers, in the order they came
async function callWithProbe(url: string, body: string): Promise<{ call: { status: number; json: Record<string, unknown> }; healthz: number }> {
  let probe: Promise<number> | undefined;
  const call = await new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const sent = httpRequest(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
    });
    sent.on('error', reject);
    sent.end(body, () => {
      probe = fetch(`${url}/healthz`).then((answer) => answer.status);
    });
  });
  return { call, healthz: await probe! };
}

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
