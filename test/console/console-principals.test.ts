import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { openSse, type SseClient } from '../helpers/sse-client.js';
import { startConsoleGateway, tokenSha256, type ConsoleGateway } from './support.js';

const TOKENS = {
  admin: 'principals-admin-token-0123456789',
  carol: 'principals-carol-token-0123456789',
  dave: 'principals-dave-token-0123456789',
  vera: 'principals-vera-token-0123456789',
} as const;
type Who = keyof typeof TOKENS;
// carol and dave are agents; vera approves (and calls nothing); admin is the api_token
const CONFIG = `principals:
  carol: { roles: [agent], token_sha256: ${tokenSha256(TOKENS.carol)} }
  dave: { roles: [agent], token_sha256: ${tokenSha256(TOKENS.dave)} }
  vera: { roles: [approver], token_sha256: ${tokenSha256(TOKENS.vera)} }
`;

let server: ConsoleGateway;
const streams: SseClient[] = [];

beforeAll(async () => {
  server = await startConsoleGateway({ repository: makeConsoleRepository, config: CONFIG, apiToken: TOKENS.admin });
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await server?.stop();
});

const bearer = (who: Who) => ({ authorization: `Bearer ${TOKENS[who]}` });

async function call(who: Who, tool: string, params: Record<string, unknown> = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(who) }, body: JSON.stringify({ tool, params }) });
  return { status: response.status, json: await response.json() };
}

async function events(who: Who): Promise<SseClient> {
  const stream = await openSse(`${server.url}/v1/events`, bearer(who));
  expect(stream.status).toBe(200);
  streams.push(stream);
  return stream;
}

/** Signs in to the console with a principal's token: its cookie and CSRF token. */
async function signIn(who: Who): Promise<{ cookie: string; csrf: string }> {
  const cookie = await signInToConsole(server.url, TOKENS[who]);
  const { csrf, page } = await consoleCsrf(server.url, cookie);
  expect(page).toContain(`<span>${who}</span>`);
  return { cookie, csrf };
}

const pageOf = async (path: string, cookie: string): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${server.url}${path}`, { headers: { cookie }, redirect: 'manual' });
  return { status: response.status, text: await response.text() };
};

describe('what each principal sees (GET /v1/events and the console)', () => {
  describe('when two agents call', () => {
    it("streams each agent only its own calls' events, and an admin and an approver all of them", async () => {
      const [carol, dave, admin, vera] = [await events('carol'), await events('dave'), await events('admin'), await events('vera')];
      const mine = await call('carol', 'fail');
      const theirs = await call('dave', 'ok');
      const rejected = await call('dave', 'no-such-tool');
      expect([mine.status, theirs.status, rejected.status]).toEqual([200, 200, 404]);
      for (const overseer of [admin, vera]) {
        await overseer.next((message) => message.event === 'call.rejected' && JSON.parse(message.data).data.caller === 'dave');
        const receipts = overseer.events().filter((event) => event.type === 'receipt.stored').map((event) => event.data.receipt);
        expect(receipts).toEqual([mine.json.id, theirs.json.id]);
      }
      await dave.next((message) => message.event === 'call.rejected');
      expect(dave.events().map((event) => [event.type, event.data.receipt ?? event.data.tool])).toEqual([['receipt.stored', theirs.json.id], ['call.rejected', 'no-such-tool']]);
      // events come in id order: once carol's later call arrives, anything of dave's would have come before it
      const later = await call('carol', 'ok');
      await carol.next((message) => message.event === 'receipt.stored' && JSON.parse(message.data).data.receipt === later.json.id);
      expect(carol.events().map((event) => [event.type, event.data.receipt, event.data.caller])).toEqual([['receipt.stored', mine.json.id, 'carol'], ['receipt.stored', later.json.id, 'carol']]);
    });

    it("lists an agent only its own receipts in the console, hides another's receipt, and shows an approver all", async () => {
      const mine = await call('carol', 'fail');
      const theirs = await call('dave', 'fail');
      const carol = await signIn('carol');
      const list = await pageOf('/console/failures', carol.cookie);
      expect(list.text).toContain(mine.json.id);
      expect(list.text).not.toContain(theirs.json.id);
      expect(list.text).toContain('Only your own calls are shown.');
      // asking for dave's calls by name changes nothing
      expect((await pageOf('/console/failures/rows?caller=dave', carol.cookie)).text).not.toContain(theirs.json.id);
      expect((await pageOf(`/console/receipts/${theirs.json.id}`, carol.cookie)).status).toBe(404);
      expect((await pageOf(`/console/receipts/${mine.json.id}`, carol.cookie)).status).toBe(200);
      const vera = await signIn('vera');
      const all = await pageOf('/console/failures', vera.cookie);
      expect(all.text).toContain(mine.json.id);
      expect(all.text).toContain(theirs.json.id);
    });
  });

  describe('when two agents hold sessions', () => {
    it("lists an agent only its own sessions, and an approver every one", async () => {
      const open = async (who: Who): Promise<string> => {
        const response = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(who) }, body: '{}' });
        expect(response.status).toBe(201);
        return ((await response.json()) as { id: string }).id;
      };
      const [carols, daves] = [await open('carol'), await open('dave')];
      const carol = await pageOf('/console/sessions', (await signIn('carol')).cookie);
      expect(carol.text).toContain(carols);
      expect(carol.text).not.toContain(daves);
      const vera = await pageOf('/console/sessions', (await signIn('vera')).cookie);
      expect(vera.text).toContain(carols);
      expect(vera.text).toContain(daves);
    });
  });

  describe('when an agent asks for a confirmation and an approver decides it in the console', () => {
    it('runs the call for the agent who asked, and tells the agent who decided', async () => {
      const carolEvents = await events('carol');
      const pending = await call('carol', 'note', { text: 'from carol' });
      expect(pending.status).toBe(202);
      const requested = JSON.parse((await carolEvents.next((message) => message.event === 'approval.requested')).data);
      expect(requested.data).toMatchObject({ caller: 'carol', tool: 'note' });
      // the agent sees its own request waiting and, as its confirmation rule lets it self-approve (as the API and its token do), may decide it; dave does not see it at all
      const carol = await signIn('carol');
      const carolsQueue = await pageOf('/console/approvals', carol.cookie);
      expect(carolsQueue.text).toContain(requested.data.approval);
      expect(carolsQueue.text).toContain('Approve and run');
      const dave = await signIn('dave');
      expect((await pageOf('/console/approvals', dave.cookie)).text).not.toContain(requested.data.approval);
      const refused = await fetch(`${server.url}/console/approvals/${encodeURIComponent(requested.data.approval)}/decide`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(server.url).origin, cookie: dave.cookie },
        body: new URLSearchParams({ _csrf: dave.csrf, decision: 'approve' }),
      });
      // refused in the words a request that does not exist gets, on the approvals page
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toMatch(/notice=no%20approval%20request/);

      const vera = await signIn('vera');
      const decided = await fetch(`${server.url}/console/approvals/${encodeURIComponent(requested.data.approval)}/decide`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(server.url).origin, cookie: vera.cookie },
        body: new URLSearchParams({ _csrf: vera.csrf, decision: 'approve', reason: 'looks fine' }),
      });
      expect(decided.status).toBe(303);
      const receiptId = decodeURIComponent(/\/console\/receipts\/(.+)$/.exec(decided.headers.get('location')!)![1]!);
      const resolved = JSON.parse((await carolEvents.next((message) => message.event === 'approval.resolved')).data);
      expect(resolved.data).toMatchObject({ approval: requested.data.approval, decision: 'approved', by: 'vera', reason: 'looks fine', caller: 'carol', receipt: receiptId });
      const receipt = await (await fetch(`${server.url}/v1/receipts/${receiptId}`, { headers: bearer('admin') })).json();
      expect(receipt).toMatchObject({ ok: true, tool: 'note', caller: 'carol', output: 'noted: from carol' });
    });
  });

  describe('when calls were rejected and the event backlog has rolled over since', () => {
    it('lists them from the store in the rejected view: an agent its own, an approver every caller\'s', async () => {
      const tools = { dave: `dave-no-such-tool-${Date.now()}`, carol: `carol-no-such-tool-${Date.now()}` };
      expect([(await call('dave', tools.dave)).status, (await call('carol', tools.carol)).status]).toEqual([404, 404]);
      // the record is written after the answer: wait until the API lists both
      for (let tries = 0; ; tries += 1) {
        const listed = (await (await fetch(`${server.url}/v1/rejections?limit=1000`, { headers: bearer('admin') })).json()) as { rejections: Array<{ tool: string }> };
        if ([tools.dave, tools.carol].every((tool) => listed.rejections.some((rejection) => rejection.tool === tool))) break;
        expect(tries).toBeLessThan(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // what pruning does once events.backlog newer events came: the call.rejected events are gone from the log
      const database = new BetterSqlite3(join(server.folder, 'data', 'receipts.db'));
      try {
        database.prepare('DELETE FROM events').run();
      } finally {
        database.close();
      }
      const dave = await pageOf('/console/rejected', (await signIn('dave')).cookie);
      expect(dave.status).toBe(200);
      expect(dave.text).toContain(tools.dave);
      expect(dave.text).toContain('TOOL_NOT_FOUND');
      expect(dave.text).not.toContain(tools.carol);
      // an agent cannot ask for another caller's: the caller filter is fixed to it
      expect((await pageOf('/console/rejected?caller=carol', (await signIn('dave')).cookie)).text).not.toContain(tools.carol);
      const vera = (await signIn('vera')).cookie;
      const all = await pageOf('/console/rejected', vera);
      expect(all.text).toContain(tools.dave);
      expect(all.text).toContain(tools.carol);
      const carols = await pageOf('/console/rejected?caller=carol', vera);
      expect(carols.text).toContain(tools.carol);
      expect(carols.text).not.toContain(tools.dave);
      expect((await pageOf('/console/rejected?code=INVALID_PARAMS', vera)).text).not.toContain(tools.carol);
    });
  });
});
