import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAIL_STDERR, makeConsoleRepository } from '../helpers/console-repo.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { commitFiles } from '../helpers/git.js';
import { startAdminConsole, startConsoleGateway, tokenSha256, type AdminConsole, type ConsoleGateway } from './support.js';

// review userZ, Z1: a receipt's page read its `approval` as a string, and showed nothing of who decided, how, why or
// under which rule; and it had no deadline. Z2: its byte counts did not say what each counted.
const TOKENS = {
  admin: 'receipt-approval-admin-token-0123456789',
  bot: 'receipt-approval-bot-token-0123456789',
  alice: 'receipt-approval-alice-token-0123456789',
} as const;
type Who = keyof typeof TOKENS;
const CONFIG = `principals:
  bot: { roles: [agent], token_sha256: ${tokenSha256(TOKENS.bot)} }
  alice: { roles: [approver], token_sha256: ${tokenSha256(TOKENS.alice)} }
`;
// `say` prints what it is given: a person reads it first. Its rule is at line 5, column 5
const POLICY = ['name: says', 'author: TEST-001', 'why: what say prints reaches people', 'approval:', '  - tools: [say]', '    decision: approve', '    reason: what say prints goes to the team channel'].join('\n');
const RULE = 'policies/says.hdlp:5:5';

let server: ConsoleGateway;
const cookies = new Map<Who, string>();

beforeAll(async () => {
  server = await startConsoleGateway({
    repository: async (folder) => {
      const repo = await makeConsoleRepository(folder);
      await commitFiles(repo, { 'policies/says.hdlp': POLICY }, 'say needs an approver');
      return repo;
    },
    config: CONFIG, apiToken: TOKENS.admin,
  });
});
afterAll(() => server?.stop());

async function api(who: Who, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${TOKENS[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

async function pageOf(path: string, who: Who): Promise<{ status: number; text: string }> {
  if (!cookies.has(who)) cookies.set(who, await signInToConsole(server.url, TOKENS[who]));
  const response = await fetch(`${server.url}${path}`, { headers: { cookie: cookies.get(who)! } });
  return { status: response.status, text: await response.text() };
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };

/** A page's facts as label → the text of its value, as a person reads it (tags left out, entities read). */
function facts(page: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of page.matchAll(/<dt>([^<]*)<\/dt><dd>([\s\S]*?)<\/dd>/g)) {
    found[match[1]!] ??= match[2]!.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|quot|#39|amp);/g, (entity) => ENTITIES[entity]!).replace(/\s+/g, ' ').trim();
  }
  return found;
}

/** Files `say` for bot (asking for a deadline of `timeoutMs` when given), and lets alice decide it with `reason`: the receipt. */
async function decided(decision: 'approve' | 'deny', reason: string, timeoutMs?: number): Promise<{ approval: string; receipt: string }> {
  const pending = await api('bot', 'POST', '/v1/call', { tool: 'say', params: { text: 'hello team' }, ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }) });
  expect(pending.status).toBe(202);
  const answer = await api('alice', 'POST', `/v1/approvals/${pending.json.id}/${decision}`, { reason });
  expect(answer.status).toBe(200);
  return { approval: pending.json.id, receipt: answer.json.receipt.id };
}

describe("a receipt's page in the console", () => {
  describe('when an approver approved the call with a reason', () => {
    it('says who approved it, how, when and why, under which rule, and the deadline it ran under', async () => {
      const { approval, receipt } = await decided('approve', 'read it: <b>fine</b> to send', 4000);
      const page = await pageOf(`/console/receipts/${encodeURIComponent(receipt)}`, 'admin');
      expect(page.status).toBe(200);
      const shown = facts(page.text);
      expect(shown).toMatchObject({
        Approval: approval,
        Decision: 'approved',
        'Decided by': 'alice',
        Via: expect.stringContaining('as a principal'),
        'Their reason': 'read it: <b>fine</b> to send',
        Rule: `${RULE}: what say prints goes to the team channel`,
        // the call asked for it, and the approver sent none: the receipt says so, nothing inferred
        Deadline: '4,000 ms — asked for by the call (its timeout_ms)',
      });
      expect(shown.Decided).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
      expect(page.text).toContain(`<a href="/console/approvals/${encodeURIComponent(approval)}">`);
      // the decider's reason is text, never markup
      expect(page.text).toContain('read it: &lt;b&gt;fine&lt;/b&gt; to send');
      expect(page.text).not.toContain('<b>fine</b>');
    });

    it('shows the caller its own receipt the same way', async () => {
      const { receipt } = await decided('approve', 'ok for bot');
      const shown = facts((await pageOf(`/console/receipts/${encodeURIComponent(receipt)}`, 'bot')).text);
      expect(shown).toMatchObject({ 'Decided by': 'alice', 'Their reason': 'ok for bot', Rule: `${RULE}: what say prints goes to the team channel`, Deadline: '30,000 ms — the default 30 s of a tool whose constraints set no timeout_ms (or set 30,000)' });
    });

    it('links the decided request, whose page shows the decision and the receipt, with nothing to decide', async () => {
      const { approval, receipt } = await decided('approve', 'linked');
      const page = await pageOf(`/console/approvals/${encodeURIComponent(approval)}`, 'alice');
      expect(page.status).toBe(200);
      expect(facts(page.text)).toMatchObject({ Id: approval, Tool: 'say', Caller: 'bot', Decision: 'approved', 'Decided by': 'alice', 'Their reason': 'linked', Receipt: receipt, Rule: `${RULE}: what say prints goes to the team channel` });
      expect(page.text).not.toContain('value="approve"');
    });
  });

  describe('when an approver denied the call', () => {
    it('says it was denied, by whom and why', async () => {
      const { receipt } = await decided('deny', 'not today');
      const shown = facts((await pageOf(`/console/receipts/${encodeURIComponent(receipt)}`, 'admin')).text);
      expect(shown).toMatchObject({ Decision: 'denied', 'Decided by': 'alice', 'Their reason': 'not today', Rule: `${RULE}: what say prints goes to the team channel` });
    });
  });

  describe("when the caller confirmed its own call with the token the tool's require_confirm gave it", () => {
    it('says it was confirmed with the token, by the caller, under the tool\'s own require_confirm', async () => {
      const pending = await api('bot', 'POST', '/v1/call', { tool: 'note', params: { text: 'mine' } });
      expect(pending.status).toBe(202);
      const confirmed = await api('bot', 'POST', '/v1/confirm', { token: pending.json.token });
      expect(confirmed.json).toMatchObject({ ok: true, output: 'noted: mine' });
      const shown = facts((await pageOf(`/console/receipts/${encodeURIComponent(confirmed.json.id)}`, 'bot')).text);
      expect(shown).toMatchObject({
        Decision: 'approved', 'Decided by': 'bot', Via: expect.stringContaining("the caller's confirmation token"), 'Their reason': '—',
        Rule: "the tool's own constraints.require_confirm: 'note' requires confirmation (constraints.require_confirm)",
      });
    });
  });

  describe('when the call needed no approval', () => {
    it("shows no approval, the tool's deadline, and what each byte count counts", async () => {
      const call = await api('bot', 'POST', '/v1/call', { tool: 'fail', params: {} });
      expect(call.json).toMatchObject({ ok: false, approval: null });
      const page = await pageOf(`/console/receipts/${encodeURIComponent(call.json.id)}`, 'admin');
      const shown = facts(page.text);
      expect(shown.Approval).toBe('—');
      expect(shown.Decision).toBeUndefined();
      // the tool sets no constraints: 30 s is the default, not a field of its (review userZ2, U6)
      expect(shown.Deadline).toBe('30,000 ms — the default 30 s of a tool whose constraints set no timeout_ms (or set 30,000)');
      const [output, stderr] = [Buffer.byteLength('partial output\n'), Buffer.byteLength(FAIL_STDERR)];
      expect(call.json.output_bytes).toBe(output + stderr);
      expect(shown.Bytes).toBe(`${output + stderr} produced by the tool (output and standard error together); none cut; stored: output ${output}, standard error ${stderr} bytes`);
      expect(page.text).toContain(`<h2>Output (raw)</h2> <span class="muted">${output} bytes stored</span>`);
      expect(page.text).toContain(`<h2>Error (raw)</h2> <span class="muted">${stderr} bytes stored</span>`);
    });
  });

  describe('when the call asked for a shorter deadline and needed no approval', () => {
    it('names the call as what asked for it, as its receipt records (review userZ2, U6)', async () => {
      const call = await api('bot', 'POST', '/v1/call', { tool: 'fail', params: {}, timeout_ms: 5000 });
      expect(call.json).toMatchObject({ ok: false, approval: null });
      const shown = facts((await pageOf(`/console/receipts/${encodeURIComponent(call.json.id)}`, 'admin')).text);
      expect(shown.Approval).toBe('—');
      expect(shown.Deadline).toBe('5,000 ms — asked for by the call (its timeout_ms)');
    });
  });
});

// a receipt stored before receipts kept `timeout_from` (by main's code before deadline17) has the milliseconds alone:
// the page still shows it, inferring the source as it did, and says that it is inferred
describe("an older receipt's page in the console", () => {
  let admin: AdminConsole;
  beforeAll(async () => {
    admin = await startAdminConsole();
  }, 120_000);
  afterAll(() => admin?.stop());

  it.each([
    ['the call asked for none', undefined, '30,000 ms — the default 30 s of a tool whose constraints set no timeout_ms (or set 30,000) (inferred: the receipt was stored before receipts kept where the deadline came from)'],
    ['the call asked for a shorter one', 5_000, "5,000 ms — shorter than the tool's timeout_ms (30,000 ms, the default when its constraints set none): asked for by the call, or the gateway's max_call_timeout_ms (inferred: the receipt was stored before receipts kept where the deadline came from)"],
  ])('renders its deadline, marked inferred, when %s', async (_case, timeoutMs, words) => {
    const outcome = await admin.gateway.call('ok', {}, { caller: 'admin', ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    if (outcome.kind !== 'receipt') throw new Error(JSON.stringify(outcome));
    // the same receipt as the code before the field made it: every field but timeout_from
    const { timeout_from: from, ...older } = outcome.receipt;
    expect(from).toBe(timeoutMs === undefined ? 'default' : 'call');
    const id = `older-${outcome.receipt.id}`;
    await admin.store.receipts.save({ ...older, id });
    const shown = facts(await admin.page(`/console/receipts/${encodeURIComponent(id)}`));
    expect(shown.Deadline).toBe(words);
    expect((await admin.store.receipts.verify()).ok).toBe(true);
  });
});

// an approved call whose run was interrupted (its gateway killed mid-run, closed CANCELLED by another instance) read
// "approved" under Decided lately, as if it had run to its end (review userZ6 F6); its approval.resolved event says how
// it ended, as the closing instance appends it
describe("the approvals view's decisions made lately", () => {
  let admin: AdminConsole;
  beforeAll(async () => {
    admin = await startAdminConsole();
  }, 120_000);
  afterAll(() => admin?.stop());

  it('says an approved call that did not finish or failed did so, and one that ran ok is approved', async () => {
    const resolved = (receipt: string, ok: boolean, code: string | null) => ({
      type: 'approval.resolved', at_ms: Date.now(),
      data: JSON.stringify({ approval: `apr_${receipt}`, kind: 'approval', decision: 'approved', tool: 'shell-exec', receipt, ok, code, by: 'alice', reason: 'fine', via: 'api' }),
    });
    await admin.store.events.append([resolved('11111111-aaaa', false, 'CANCELLED'), resolved('22222222-bbbb', false, 'NONZERO_EXIT'), resolved('33333333-cccc', true, null)]);
    const page = await admin.page('/console/approvals');
    const decision = (receipt: string) => page.match(new RegExp(`<td data-label="Decision">([^<]*)</td>(?:(?!</tr>).)*${receipt.slice(0, 8)}</a>`, 's'))?.[1];
    expect(decision('11111111-aaaa')).toBe('approved; the run did not finish (CANCELLED: interrupted or cancelled)');
    expect(decision('22222222-bbbb')).toBe('approved; the call failed (NONZERO_EXIT)');
    expect(decision('33333333-cccc')).toBe('approved');
  });
});
