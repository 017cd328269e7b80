import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../helpers/git.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, WRITES_NEED_AN_APPROVER } from './support.js';

// Review userX, X3: any commit (a README typo) voided every pending approval — approving answered 409 "the registry
// moved … call the tool again" to the approver, who is not the caller, and the console still offered "Approve and run".
// A request is bound to what it was judged against: the tool's definition and the policy files.
let gateway: PolicyGateway;
let workspace: string;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
  workspace = join(gateway.folder, 'workspace');
});
afterAll(() => gateway?.stop());

const ask = async (path: string): Promise<string> => {
  const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'x\n' } } });
  expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
  return pending.body.id as string;
};
const commitAndScan = async (files: Record<string, string>): Promise<void> => {
  await commitFiles(gateway.repo, files);
  expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
};
const consolePage = async (): Promise<string> => {
  const cookie = await signInToConsole(gateway.url, TOKENS.alice);
  return (await fetch(`${gateway.url}/console/approvals`, { headers: { cookie } })).text();
};
const itemOf = (page: string, id: string): string => page.slice(page.indexOf(`data-approval="${id}"`), page.indexOf('</li>', page.indexOf(`data-approval="${id}"`)));

describe('a pending approval across a commit', () => {
  it('stays decidable after a commit that touches only the README, and runs when approved', async () => {
    const id = await ask('docs-only.txt');
    await commitAndScan({ 'README.md': '# tools\n\nA typo, fixed.\n' });
    expect(itemOf(await consolePage(), id)).toContain('Approve and run');
    const approved = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { reason: 'fine' } });
    expect(approved).toMatchObject({ status: 200, body: { approval: { status: 'approved' }, receipt: { ok: true } } });
    expect(await readFile(join(workspace, 'docs-only.txt'), 'utf8')).toBe('x\n');
  });

  it("is outdated by a change to the tool's definition: the console marks it, and the approver is told what changed and who must call again", async () => {
    const id = await ask('changed-tool.txt');
    const definition = await readFile(join(gateway.repo, 'tools/file-write/TOOL.hdlp'), 'utf8');
    await commitAndScan({ 'tools/file-write/TOOL.hdlp': definition.replace(/^author: .*$/m, 'author: someone-else') });
    const item = itemOf(await consolePage(), id);
    expect(item).toContain('data-outdated="true"');
    expect(item).toContain('tools/file-write/TOOL.hdlp');
    expect(item).not.toContain('Approve and run');
    const stale = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice' });
    expect(stale).toMatchObject({ status: 409, body: { code: 'APPROVAL_OUTDATED', receipt: { code: 'CANCELLED' } } });
    expect(stale.body.error).toContain("the definition of 'file-write'");
    expect(stale.body.error).toContain("its caller 'bot' must call the tool again");
    await expect(readFile(join(workspace, 'changed-tool.txt'), 'utf8')).rejects.toThrow();
  });

  it('is outdated by a change to the policies', async () => {
    const id = await ask('changed-policy.txt');
    await commitAndScan({ 'policies/writes.hdlp': `${WRITES_NEED_AN_APPROVER['policies/writes.hdlp']!}\n# reviewed again\n` });
    const stale = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice' });
    expect(stale).toMatchObject({ status: 409, body: { code: 'APPROVAL_OUTDATED' } });
    expect(stale.body.error).toContain('the policies (policies/) changed');
  });
});
