// Review Z15, Z15-4 and I-1, I-2: what answers at `hldp approvals --url` need not be the gateway (a proxy, a wrong port,
// a hostile server). An answer that never ended was read whole (535 MB in 20 s, until the approver's CLI died); JSON of
// the right content type but not the API's shape stopped the command with the engine's words (`Cannot read properties
// of undefined (reading 'reason')`); and the principal's token went to an http:// address beyond this machine without a
// word. Real HTTP servers, a real `hldp approvals` process.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES } from '../../src/cli/approvals-over-http.js';
import { APPROVAL_PAGE_BYTES } from '../../src/oversight/approval-routes.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../src/config/load-config.js';
import { runCli } from '../helpers/run-cli.js';

const TOKEN = 'approver-token-0123456789';
// no token from the test's own shell
const SHELL = { HLDP_TOKEN: undefined, HLDP_API_TOKEN: undefined, HLDP_CONFIG: undefined, HLDP_URL: undefined };

let server: Server | undefined;
const sent = { bytes: 0, closed: false };
const authorizations: Array<string | undefined> = [];

/** A real HTTP server on `host` answering every request as `answer` does. */
async function serve(answer: (res: ServerResponse, path: string) => void, host = '127.0.0.1'): Promise<string> {
  sent.bytes = 0;
  sent.closed = false;
  authorizations.length = 0;
  server = createServer((request, res) => {
    authorizations.push(request.headers.authorization);
    request.resume();
    res.once('close', () => (sent.closed = true));
    answer(res, request.url ?? '/');
  });
  await new Promise<void>((resolve) => server!.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** `{"approvals":["AAAA…` without end, as fast as the client reads, until it hangs up. */
function endless(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"approvals":["');
  const chunk = 'A'.repeat(1 << 20);
  const more = () => {
    while (!res.destroyed && res.write(chunk)) sent.bytes += chunk.length;
    if (!res.destroyed) res.once('drain', more);
  };
  more();
}

afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

const RECORD = {
  id: 'apr_1', status: 'pending', tool: 'file-write', executor: 'gatekeeper', method: 'write_file', params: { path: 'a' }, caller: 'bot', session: null,
  commit: 'c0ffee', created_at: '2026-12-06T18:00:00Z', expires_at: '2026-12-06T19:00:00Z', decided_at: null, decided_by: null, decided_via: null,
  decision_reason: null, receipt_id: null, run: null, rule: { reason: 'a write needs a person' },
};

describe('hldp approvals --url at a server whose answer never ends', () => {
  it('reads at most MAX_ANSWER_BYTES, says the answer was cut, and hangs up (list, show --wait, approve)', { timeout: 120_000 }, async () => {
    const url = await serve((res) => endless(res));
    for (const args of [['list'], ['show', 'apr_1', '--wait', '30'], ['approve', 'apr_1']]) {
      const run = await runCli(['approvals', ...args, '--url', url], { env: { ...SHELL, HLDP_TOKEN: TOKEN }, timeoutMs: 50_000 });
      expect(run.code, run.stderr).toBe(2);
      // on main: still reading when killed, its memory growing as the answer does
      expect(run.stderr).toContain(`answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
      expect(run.stderr).toContain('read no further');
      if (args[0] === 'approve') expect(run.stderr).toContain('the decision was sent and may have been taken');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      await expect.poll(() => sent.closed, { timeout: 10_000 }).toBe(true);
      // what the server could write before the client hung up: the bound, and what the socket buffers held
      expect(sent.bytes).toBeLessThan(MAX_ANSWER_BYTES + 32 * 1024 * 1024);
      sent.closed = false;
      sent.bytes = 0;
    }
  });

  it("bounds the answer well above what the gateway's own answers hold", () => {
    // a page: at most about APPROVAL_PAGE_BYTES of params and 1,000 requests; one request: a receipt of up to twice the default output cap
    expect(MAX_ANSWER_BYTES).toBeGreaterThanOrEqual(8 * APPROVAL_PAGE_BYTES);
    expect(MAX_ANSWER_BYTES).toBeGreaterThanOrEqual(2 * DEFAULT_MAX_OUTPUT_BYTES + 8 * APPROVAL_PAGE_BYTES);
  });
});

describe('hldp approvals --url at a server whose JSON is not the API\'s answer', () => {
  const cases: Array<{ args: string[]; body: unknown; named: string }> = [
    { args: ['list'], body: { approvals: [{ id: 'x', status: 5 }] }, named: 'approvals[0].status is not a string' },
    { args: ['list'], body: { approvals: [{ ...RECORD, rule: undefined }] }, named: 'approvals[0].rule is missing' },
    { args: ['list'], body: { requests: [] }, named: 'approvals is missing' },
    { args: ['show', 'apr_1'], body: { approval: { ...RECORD, rule: { reason: 'r', place: { workspace: 7 } } } }, named: 'approval.rule.place.workspace is not a string' },
    { args: ['approve', 'apr_1'], body: { approval: { ...RECORD, status: 'approved', decided_by: 'x' }, receipt: null, lease_lapsed: { error: 5 } }, named: 'lease_lapsed.error is not a string' },
    { args: ['deny', 'apr_1'], body: null, named: 'JSON that is not an object' },
  ];
  for (const { args, body, named } of cases) {
    it(`${args[0]}: ${named}`, { timeout: 60_000 }, async () => {
      const url = await serve((res) => json(res, body));
      const run = await runCli(['approvals', ...args, '--url', url], { env: SHELL, timeoutMs: 50_000 });
      expect(run.code, run.stderr).toBe(2);
      // on main: hldp: Cannot read properties of undefined (reading 'reason') / text2.matchAll is not a function
      expect(run.stderr).toContain(named);
      expect(run.stderr).not.toMatch(/Cannot read properties|is not a function|TypeError/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stdout).toBe('');
    });
  }

  it('prints an answer of the API\'s shape as before', { timeout: 60_000 }, async () => {
    const url = await serve((res) => json(res, { approvals: [RECORD] }));
    const run = await runCli(['approvals', 'list', '--url', url], { env: SHELL, timeoutMs: 50_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/apr_1\s+pending\s+file-write\s+by bot/);
  });
});

describe('hldp approvals --url and hldp tail with a token over plain http', () => {
  // an address of this machine that is not loopback (on Linux, 0.0.0.0 reaches this machine's listeners too)
  const external = Object.values(networkInterfaces()).flat().find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address ?? '0.0.0.0';

  it('warns on stderr when the token goes to a host beyond loopback, and still asks', { timeout: 60_000 }, async () => {
    const url = await serve((res) => json(res, { approvals: [] }), external);
    const run = await runCli(['approvals', 'list', '--url', url], { env: { ...SHELL, HLDP_TOKEN: TOKEN }, timeoutMs: 50_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^hldp: WARNING: your token is sent unencrypted to [\d.]+:\d+ \(an http:\/\/ URL\).*use https:\/\//m);
    expect(authorizations).toEqual([`Bearer ${TOKEN}`]);
    const tail = await runCli(['tail', '--url', url, '--count', '1'], { env: { ...SHELL, HLDP_TOKEN: TOKEN }, timeoutMs: 50_000 });
    expect(tail.stderr).toMatch(/^hldp tail: WARNING: your token is sent unencrypted to /m);
  });

  it('says nothing over loopback, nor without a token', { timeout: 60_000 }, async () => {
    const local = await serve((res) => json(res, { approvals: [] }));
    const run = await runCli(['approvals', 'list', '--url', local], { env: { ...SHELL, HLDP_TOKEN: TOKEN }, timeoutMs: 50_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('WARNING');
    await new Promise((resolve) => server!.close(resolve));
    const url = await serve((res) => json(res, { approvals: [] }), external);
    const bare = await runCli(['approvals', 'list', '--url', url], { env: SHELL, timeoutMs: 50_000 });
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).not.toContain('WARNING');
  });

  it('--help points to HLDP_TOKEN rather than --token on the command line', { timeout: 60_000 }, async () => {
    for (const command of ['approvals', 'tail']) {
      const help = await runCli([command, '--help'], { env: SHELL });
      expect(help.stdout + help.stderr).toMatch(/--token\s+T: .*prefer HLDP_TOKEN, since a --token on the command line is readable by every user of this machine/);
    }
  });
});

// Review Z17, Z17-4: a receipt whose params are 200,000 nested lists passed the shape check (params are not a printed
// field of it), so `approve` printed the decision's line and then ended in 'Maximum call stack size exceeded' from the
// printer's JSON.stringify, as `show --json` did
describe('hldp approvals --url at a server answering JSON nested 200,000 levels deep', () => {
  it('names the nesting as what is amiss, before printing anything, and never ends in the engine\'s words', { timeout: 120_000 }, async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"approval":${JSON.stringify({ ...RECORD, status: 'approved' })},"receipt":{"id":"r","ok":true,"params":${deep}}}`);
    });
    for (const args of [['approve', 'apr_1'], ['show', 'apr_1', '--json']]) {
      const run = await runCli(['approvals', ...args, '--url', url], { env: { ...SHELL, HLDP_TOKEN: TOKEN }, timeoutMs: 50_000 });
      expect(run.stderr).not.toContain('Maximum call stack');
      expect(run.stderr).toContain('nested more than 1000 levels deep');
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
    }
  });
});
