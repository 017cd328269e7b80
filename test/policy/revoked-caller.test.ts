import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, PRINCIPALS_YAML, startGateway } from './support.js';

// a person approves every write; the caller's rights change in the config (no commit) while its request waits
const WRITES = ['name: writes', 'author: TEST-001', 'why: every write needs a person', 'approval:', '  - tools: [file-write]', '    decision: approve', '    reason: a write needs a person'].join('\n');

let made: Awaited<ReturnType<typeof policyRepository>>;
let running: ServiceProcess | undefined;

beforeEach(async () => {
  made = await policyRepository({ 'policies/writes.hdlp': WRITES });
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await made.temp.cleanup();
});

// one gateway at a time over the same store: the operator edits the config and restarts
const serve = async (principals: string): Promise<string> => {
  await running?.stop();
  const gateway = await startGateway(made.repo, made.temp.path, { principals });
  running = gateway.service;
  return gateway.url;
};
const exists = (path: string) => readFile(join(made.temp.path, 'workspace', path), 'utf8').then((text) => text, () => undefined);
const write = (url: string, path: string) => api(url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'ran\n', create_dirs: true } } });

describe('a request approved after its caller lost the right to call', () => {
  it.each([
    ['removed from the config', PRINCIPALS_YAML.replace(/^ {2}bot: .*\n/m, ''), /principal 'bot' is not configured/],
    ['left without a calling role', PRINCIPALS_YAML.replace('bot: { roles: [agent],', 'bot: { roles: [approver],'), /calling tools needs one of/],
    ['with the tool taken out of its base list', PRINCIPALS_YAML.replace('file-read, file-write,', 'file-read,'), /not in the tools of principal 'bot'/],
  ])('when bot was %s, ends cancelled with a receipt that says why, and nothing runs', async (_how, after, why) => {
    let url = await serve(PRINCIPALS_YAML);
    const pending = await write(url, 'revoked.txt');
    expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
    url = await serve(after);
    const approved = await api(url, 'POST', `/v1/approvals/${pending.body.id}/approve`, { who: 'alice' });
    expect(approved).toMatchObject({
      status: 409,
      body: { code: 'APPROVAL_OUTDATED', receipt: { ok: false, code: 'CANCELLED', caller: 'bot', approval: { status: 'cancelled', via: 'outdated' } } },
    });
    expect(approved.body.error).toMatch(why);
    expect(approved.body.receipt.error).toContain("'bot' may no longer call 'file-write'");
    expect(await exists('revoked.txt')).toBeUndefined();
    // decided once: approving again is told so
    expect((await api(url, 'POST', `/v1/approvals/${pending.body.id}/approve`, { who: 'alice' })).body).toMatchObject({ code: 'APPROVAL_DECIDED' });
  });

  it('still runs for a caller whose rights did not change across the restart', async () => {
    let url = await serve(PRINCIPALS_YAML);
    const pending = await write(url, 'kept.txt');
    url = await serve(PRINCIPALS_YAML);
    const approved = await api(url, 'POST', `/v1/approvals/${pending.body.id}/approve`, { who: 'alice' });
    expect(approved).toMatchObject({ status: 200, body: { receipt: { ok: true, caller: 'bot' } } });
    expect(await exists('kept.txt')).toBe('ran\n');
  });
});

describe('a confirmation token presented after its caller lost the tool', () => {
  it('is refused, the request ends cancelled, and nothing runs', async () => {
    await made.temp.cleanup();
    made = await policyRepository({});
    let url = await serve(PRINCIPALS_YAML);
    // file-write's own require_confirm gives bot a token
    const pending = await write(url, 'confirmed.txt');
    expect(pending).toMatchObject({ status: 202, body: { status: 'confirmation_required' } });
    url = await serve(PRINCIPALS_YAML.replace('file-read, file-write,', 'file-read,'));
    const confirmed = await api(url, 'POST', '/v1/confirm', { who: 'bot', body: { token: pending.body.token } });
    expect(confirmed.body).toMatchObject({ code: 'CONFIRMATION_INVALID' });
    expect(confirmed.body.error).toMatch(/'bot' may no longer call 'file-write'.*not in the tools of principal 'bot'/);
    expect(await exists('confirmed.txt')).toBeUndefined();
    const request = await api(url, 'GET', `/v1/approvals/${pending.body.id}`, { who: 'bot' });
    expect(request.body).toMatchObject({ approval: { status: 'cancelled', decided_via: 'outdated' } });
  });
});
