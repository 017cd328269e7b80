// Review R: inputs a real `hldp serve` took without a word.
// R11: shell-exec (the gatekeeper's exec) ran a command cut at a NUL while its receipt recorded the whole `cmd`; the
// shell executor refuses such a value. R1/R12: POST /v1/hooks/forgejo with a correct signature accepted any body —
// `{bad`, `[]`, `{"ref":5}`, Forgejo's form-encoded payload — with 202 and a rescan, so a misconfigured webhook was
// never told.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectDocumented } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const SECRET = 'webhook-secret-for-tests';

const post = (url: string, path: string, body: string, headers: Record<string, string>) => fetch(`${url}${path}`, { method: 'POST', headers, body });

describe('hldp serve', () => {
  describe('when shell-exec is given a cmd or cwd holding a NUL', () => {
    it.each([
      [{ cmd: 'printf "a\u0000b" | od -c' }],
      [{ cmd: 'pwd', cwd: '.\u0000/etc' }],
    ])('refuses the call with INVALID_PARAMS and runs nothing (%j)', async (params) => {
      const server = await home.serve();
      const response = await post(server.url, '/v1/call', JSON.stringify({ tool: 'shell-exec', params }), { 'content-type': 'application/json' });
      expect(response.status).toBe(200);
      const receipt = (await response.json()) as { ok: boolean; code: string; error: string; output: string };
      expect(receipt).toMatchObject({ ok: false, code: 'INVALID_PARAMS', output: '' });
      expect(receipt.error).toMatch(/^parameter values may not contain NUL characters/);
    });
  });

  describe('when a signed webhook body is not a JSON object', () => {
    it.each([
      ['{bad', 'application/json', 'MALFORMED_JSON', /^the webhook's body is not JSON \(.*\): in the webhook's settings, choose POST Content Type application\/json$/],
      ['payload=%7B%22ref%22%3A%22refs%2Fheads%2Fmain%22%7D', 'application/x-www-form-urlencoded', 'MALFORMED_JSON', /choose POST Content Type application\/json$/],
      ['[]', 'application/json', 'INVALID_REQUEST', /^the webhook's body must be a JSON object \(Forgejo's event payload\), got an array/],
      ['{"ref":5}', 'application/json', 'INVALID_REQUEST', /^the webhook's 'ref' must be a string .*got a number$/],
    ])('answers %s (%s) with 400 %s naming the fix, and rescans nothing', async (body, type, code, error) => {
      const server = await home.serve([], { HLDP_WEBHOOK_SECRET: SECRET, HLDP_POLL_INTERVAL_MS: '0' });
      const signature = createHmac('sha256', SECRET).update(body).digest('hex');
      const response = await post(server.url, '/v1/hooks/forgejo', body, { 'content-type': type, 'x-forgejo-event': 'push', 'x-forgejo-signature': signature });
      const json = (await response.json()) as { code: string; error: string };
      expect({ status: response.status, code: json.code }).toEqual({ status: 400, code });
      expect(json.error).toMatch(error);
      expectDocumented('/v1/hooks/forgejo', 'POST', { status: response.status, json });
      // a well-formed push is still accepted
      const push = JSON.stringify({ ref: 'refs/heads/main', after: '0'.repeat(40) });
      const accepted = await post(server.url, '/v1/hooks/forgejo', push, { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-signature': createHmac('sha256', SECRET).update(push).digest('hex') });
      expect(accepted.status).toBe(202);
    });
  });
});
