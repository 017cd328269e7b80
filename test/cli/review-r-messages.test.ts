// Review R, R12: messages that named the wrong fix or hid the field. `HLDP_WORKSPACE=/nonexistent hldp call shell-exec`
// was told to "pass another --root" — a flag of `hldp gatekeeper`, not of `hldp call`; a standalone `hldp gatekeeper`
// refused a body field with "body must NOT have additional properties", naming neither it nor the allowed ones; and its
// /healthz showed the sandbox's details, the run_as user among them, to anyone without the token.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const TOKEN = 'gatekeeper-token-for-review-r';

describe('hldp call', () => {
  describe('when HLDP_WORKSPACE names a folder that does not exist', () => {
    it('says to set workspace_root (or HLDP_WORKSPACE), not --root', async () => {
      const missing = join(home.path, 'nonexistent-ws');
      const run = await runCli(['call', 'shell-exec', '--params', '{"cmd":"echo hi"}', '--json'], { env: { ...home.env, HLDP_WORKSPACE: missing } });
      expect(run.code).toBe(1);
      const receipt = JSON.parse(run.stdout) as { code: string; error: string };
      expect(receipt.code).toBe('INTERNAL_ERROR');
      expect(receipt.error).toContain(`workspace '${missing}' does not exist; create it or set workspace_root (or HLDP_WORKSPACE) to an existing folder`);
      expect(receipt.error).not.toContain('--root');
    });
  });
});

describe('hldp gatekeeper', () => {
  const start = () => home.start(['gatekeeper', '--port', '0', '--root', home.path], { HLDP_GATEKEEPER_TOKEN: TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);

  describe('when POST /exec carries a field it does not take', () => {
    it('answers 400 naming the field and the allowed ones', async () => {
      const gatekeeper = await start();
      const answer = await request(gatekeeper, 'POST', '/exec', { body: { method: 'exec', params: { cmd: 'true' }, extra: 1 }, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(answer.status).toBe(400);
      expect(answer.json.code).toBe('INVALID_REQUEST');
      expect(answer.json.error).toMatch(/^unknown field 'extra' in body; allowed: method, params, timeout_ms, max_output_bytes, sandbox; send /);
      const inParams = await request(gatekeeper, 'POST', '/exec', { body: { method: 'exec', params: { cmd: 'true', shell: 'bash' } }, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(inParams.json).toMatchObject({ code: 'INVALID_PARAMS', error: "exec: unknown field 'shell' in params; allowed: cmd, cwd" });
    });
  });

  describe('when GET /healthz is asked', () => {
    it('answers only {status} without the token, and the sandbox with it, as the gateway does', async () => {
      const gatekeeper = await start();
      expect((await request(gatekeeper, 'GET', '/healthz')).json).toEqual({ status: 'ok' });
      expect((await request(gatekeeper, 'GET', '/healthz', { headers: { authorization: 'Bearer wrong-token' } })).json).toEqual({ status: 'ok' });
      const detailed = (await request(gatekeeper, 'GET', '/healthz', { headers: { authorization: `Bearer ${TOKEN}` } })).json as { status: string; sandbox: Record<string, unknown> };
      expect(detailed.status).toBe('ok');
      expect(detailed.sandbox).toMatchObject({ state: expect.stringMatching(/^(on|off)$/), mode: 'auto' });
      expect(detailed.sandbox).not.toHaveProperty('runAs');
    });
  });
});
