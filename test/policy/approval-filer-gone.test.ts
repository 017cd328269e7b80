// Review userZ6, F10. Two instances on one store, each with other settings (the operator added a setting at B). A
// request filed at A is offered at B as "Approve — it runs at the gateway that filed it", and B's approval is recorded
// for A to run. Once A was restarted with B's settings, A said plainly that its settings changed (deny it), but B still
// offered the approval: alice approved there, nothing could run it, and it expired while the agent waited for nothing.
// Now every serving instance keeps a row in the store's roll of live instances, and B, finding no instance serving
// with the request's settings, says so and offers Deny only; its API refuses the approval (nothing ran, pending). An
// instance restarted with the same settings still runs what it filed: B keeps offering that approval. While the filer
// is down for moments (a rolling restart), B also says when it stopped and to wait for it (review userZ8, M3). And
// once a stopped filer's row would have been removed from the roll, 10 minutes on, B still says so while the request
// waits, where it offered the approval again as if the filer were only not seen yet (review Z14, Z14-6).
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { freePort } from '../helpers/free-port.js';
import { runCli } from '../helpers/run-cli.js';
import { api, heldShowText, receiptOf, TOKENS } from './support.js';

/** Asks `read` every half second until `done` holds of its answer (at most `ms`); the last answer. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 90_000): Promise<T> {
  let value = await read();
  for (const end = Date.now() + ms; !done(value) && Date.now() < end; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    value = await read();
  }
  return value;
}

/**
 * Two real `hldp serve` on one SQLite store: A with the settings a request is filed under, B with a setting more (as an
 * operator adds one); alice signed in at B's console. `serve` starts A again (on its port) with either settings.
 */
async function twoInstances(stops: Array<() => Promise<unknown>>) {
  const { temp, before, after, serve: start } = await heldShowText();
  stops.push(() => temp.cleanup());
  const serve = (name: string, config: string, port: number) => start({ name, config, port, store: { HLDP_DATA_DIR: join(temp.path, 'data') } });
  const portA = await freePort();
  // one after another: the first sets the store up
  const a = await serve('a', before, portA);
  stops.push(() => a.stop());
  const b = await serve('b', after, 0);
  stops.push(() => b.stop());
  const cookie = await signInToConsole(b.url, TOKENS.alice);
  const pageAtB = async (id: string): Promise<string> => (await fetch(`${b.url}/console/approvals/${id}`, { headers: { cookie } })).text();
  const file = async (text: string): Promise<string> => {
    const filed = await api(a.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'show-text', params: { text } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    return filed.body.id as string;
  };
  return { temp, before, after, portA, a, b, cookie, pageAtB, file, serve };
}

describe('an approval offered at one instance for a request whose filer was restarted with other settings (review userZ6 F10)', () => {
  const stops: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 90_000);

  it('offers Deny only, says no gateway serving runs it, and refuses an approval (pending, nothing ran); while a gateway with its settings serves, the approval is offered and runs there', { timeout: 420_000 }, async () => {
    const setup = await twoInstances(stops);
    const { before, after, portA, b, cookie, pageAtB, file, serve } = setup;
    let a = setup.a;
    stops.push(() => a.stop());
    // A restarted with the same settings runs what the A before it filed: B offers the approval, and it runs there
    const first = await file('same settings');
    await a.stop();
    a = await serve('a', before, portA);
    const offered = await until(() => pageAtB(first), (page) => page.includes('data-elsewhere="true"'));
    expect(offered).toContain('Approve — it runs at the gateway that filed it');
    const approved = await api(b.url, 'POST', `/v1/approvals/${first}/approve`, { who: 'alice', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    expect((await receiptOf(a.url, first)).receipt).toMatchObject({ ok: true, output: 'same settings\n', approval: { id: first, decided_by: 'alice' } });

    // A restarted with B's settings: no instance serving has the settings the request was filed under
    const second = await file('settings changed');
    expect(await pageAtB(second)).toContain('Approve — it runs at the gateway that filed it');
    await a.stop();
    // while A is down (a rolling restart, an upgrade's npm ci), B tells the approver to wait for it as well as to deny
    // (review userZ8, M3: told only "deny it", an approver dropped a request A would run seconds later)
    const down = await until(() => pageAtB(second), (text) => text.includes('data-elsewhere="gone"'));
    expect(down).toMatch(/If it is being restarted with the settings it had \(it stopped \d+ s ago\), wait until it serves again: approving is offered then, and it runs there\./);
    a = await serve('a', after, portA);
    const page = await until(() => pageAtB(second), (text) => text.includes('data-elsewhere="gone"'));
    expect(page).toContain('data-elsewhere="gone"');
    expect(page).toContain('No gateway runs it: no gateway serving now runs request');
    expect(page).toContain('the gateway that filed it no longer serves, and no instance serving on this store has the settings it was filed under');
    expect(page).toContain('deny it, and its caller must call the tool again');
    expect(page).not.toContain('it runs at the gateway that filed it</button>');
    expect(page).not.toContain('Approve and run');
    expect(page).toContain('value="deny"');
    expect(page).not.toContain('key-5e1d');

    // over the API too: nothing decided, nothing ran
    const refused = await api(b.url, 'POST', `/v1/approvals/${second}/approve`, { who: 'alice', body: {} });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ code: 'APPROVAL_MISMATCH', approval: { id: second, status: 'pending', receipt_id: null } });
    expect(refused.body.error).toContain(`no gateway serving now runs request '${second}'`);
    expect(refused.body.error).not.toMatch(/ pid \d+|\(instance |https?:\/\//);

    // Deny closes it, and its caller reads why
    const { csrf } = await consoleCsrf(b.url, cookie);
    const denied = await fetch(`${b.url}/console/approvals/${second}/decide`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(b.url).origin, cookie },
      body: new URLSearchParams({ _csrf: csrf, decision: 'deny', reason: 'nothing serves it' }),
    });
    expect(denied.status).toBe(303);
    expect((await api(b.url, 'GET', `/v1/approvals/${second}`, { who: 'bot' })).body).toMatchObject({ approval: { status: 'denied' }, receipt: { code: 'DENIED' } });
  });
  // review Z14, Z14-6: a request waits up to 7 days (expires_in_ms), its filer's row was removed from the roll 10 minutes
  // after the filer stopped, and B then offered "Approve — it runs at the gateway that filed it" as if A were only not
  // seen yet: an approval nothing would run. A's row now stays while a request it filed waits
  it('still says no gateway serving runs the request, and refuses its approval, long after its filer stopped', { timeout: 300_000 }, async () => {
    const { temp, a, b, pageAtB, file } = await twoInstances(stops);
    const id = await file('filer long gone');
    await a.stop();
    expect(await until(() => pageAtB(id), (text) => text.includes('data-elsewhere="gone"'))).toContain('data-elsewhere="gone"');
    // an hour passes for A's row (the roll's clock is the host's on SQLite): past the 10 minutes a quiet row was kept
    const store = new BetterSqlite3(join(temp.path, 'data', 'receipts.db'));
    try {
      store.pragma('busy_timeout = 10000');
      store.prepare('UPDATE gateway_instances SET seen_ms = seen_ms - 3600000, left_ms = left_ms - 3600000 WHERE left_ms IS NOT NULL').run();
      // B's next beat: its own row renewed past now, the roll read after that beat's removals
      const since = Date.now();
      const seenOfB = () => store.prepare<[], { seen: number }>('SELECT max(seen_ms) AS seen FROM gateway_instances WHERE left_ms IS NULL').get()!.seen;
      await until(async () => seenOfB(), (seen) => seen > since, 60_000);
      expect(seenOfB()).toBeGreaterThan(since);
    } finally {
      store.close();
    }
    const page = await pageAtB(id);
    expect(page).toContain('data-elsewhere="gone"');
    expect(page).toContain('the gateway that filed it no longer serves, and no instance serving on this store has the settings it was filed under');
    expect(page).not.toContain('it runs at the gateway that filed it</button>');
    expect(page).not.toContain('If it is being restarted');
    // over HTTP, and hldp approvals at B (the CLI over its API): refused, nothing decided, nothing ran
    const refused = await api(b.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ code: 'APPROVAL_MISMATCH', approval: { id, status: 'pending', receipt_id: null } });
    expect(refused.body.error).toContain(`no gateway serving now runs request '${id}'`);
    const cli = await runCli(['approvals', 'approve', id, '--url', b.url], { env: { HLDP_TOKEN: TOKENS.alice, HLDP_LOG_LEVEL: 'warn' } });
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stderr).toContain(`APPROVAL_MISMATCH: no gateway serving now runs request '${id}'`);
    expect((await api(b.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body).toMatchObject({ approval: { status: 'pending' } });
  });
});
