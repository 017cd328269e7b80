import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway } from '../policy/support.js';

// Review K's K20: forgejo.repo "../admin" passed the schema, and the URL resolved /repos/../admin/contents/x to
// /api/v1/admin/contents/x — the Forgejo token went to an endpoint of the definition's choosing.

const TOKEN = 'forgejo-pat-0123456789abcdef';
const readFile = (name: string, repo?: string) => [
  `name: ${name}`, `display: ${name}`, 'intent: reads a file of a Forgejo repository', 'method: read_file', 'executor: git-forgejo',
  ...(repo === undefined ? [] : [`forgejo: { repo: "${repo}" }`]),
  'params_schema:', '  path: { type: string, required: true }', 'author: TEST-001', 'created: 2026-12-01', `why: tests need ${name}`,
].join('\n');

let forgejo: Server;
const seen: string[] = [];
let gateway: PolicyGateway;
beforeAll(async () => {
  forgejo = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
  });
  await new Promise<void>((resolve) => forgejo.listen(0, '127.0.0.1', resolve));
  gateway = await startPolicyGateway(
    { 'tools/escape/TOOL.hdlp': readFile('escape', '../admin'), 'tools/escape-name/TOOL.hdlp': readFile('escape-name', 'owner/..'), 'tools/default-repo/TOOL.hdlp': readFile('default-repo') },
    { env: { HLDP_FORGEJO_URL: `http://127.0.0.1:${(forgejo.address() as AddressInfo).port}`, HLDP_FORGEJO_TOKEN: TOKEN, HLDP_FORGEJO_REPO: '../admin' } },
  );
});
afterAll(async () => {
  await gateway?.stop();
  forgejo?.close();
});

describe('a forgejo.repo whose owner or name is . or ..', () => {
  it('is a diagnostic at its file and line, and the tool is not served', async () => {
    const scan = await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' });
    for (const file of ['tools/escape/TOOL.hdlp', 'tools/escape-name/TOOL.hdlp']) {
      expect(scan.body.errors).toContainEqual(expect.objectContaining({ file, line: 6 }));
      const call = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: file.split('/')[1], params: { path: 'x' } } });
      expect(call.body.ok).not.toBe(true);
    }
  });

  it('in the gateway config is refused at call time, and the token goes nowhere', async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'default-repo', params: { path: 'x' } } });
    expect(call.body).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining("neither may be '.' or '..'") });
    expect(seen).toEqual([]);
  });
});
