import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithChromium, launchChromium } from '../helpers/browser.js';
import { FAIL_STDERR, makeConsoleRepository } from '../helpers/console-repo.js';
import { commitFiles, git, initRepository, makeTempDir } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { openSse } from '../helpers/sse-client.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKEN = 'console-test-token-0123456789';
// HLDP_UPDATE_SCREENSHOTS=1 writes the README's screenshots; otherwise they go to the test's temporary folder
const SCREENSHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
// the author's clone; the gateway serves the bare repository it pushes to, over real smart HTTP (git http-backend)
let work: string;
let gitServer: GitHttpServer;
let server: ServiceProcess;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;
const dialogs: string[] = [];
const auth = { authorization: `Bearer ${TOKEN}` };

async function screenshot(target: Page, name: string): Promise<void> {
  const folder = process.env.HLDP_UPDATE_SCREENSHOTS ? SCREENSHOTS : join(temp.path, 'screenshots');
  await mkdir(folder, { recursive: true });
  await target.screenshot({ path: join(folder, `${name}.png`), fullPage: false });
}

/** Asks for a confirmation over the API and waits until its approval.requested event has gone out (a live page opened later does not reload for it). */
async function askConfirmation(text: string): Promise<{ token: string }> {
  const events = await openSse(`${server.url}/v1/events?types=approval.requested`, auth);
  try {
    const pending = await request(server, 'POST', '/v1/call', { headers: auth, body: { tool: 'note', params: { text } } });
    expect(pending.status).toBe(202);
    await events.next((message) => JSON.parse(message.data).data.params?.text === text);
    return pending.json;
  } finally {
    events.close();
  }
}

async function signIn(target: Page): Promise<void> {
  await target.goto(`${server.url}/`);
  await target.waitForURL(/\/console\/sign-in/);
  await target.fill('#token', TOKEN);
  await target.click('button[type=submit]');
  await target.waitForURL(/\/console\/failures/);
}

describeWithChromium('the console in a real browser (Debian chromium, playwright-core)', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-console-');
    work = await makeConsoleRepository(temp.path);
    const served = join(temp.path, 'served');
    await initRepository(join(served, 'tools.git'), { bare: true });
    gitServer = await startGitHttpServer({ projectRoot: served });
    await git(work, 'remote', 'add', 'origin', `${gitServer.url}/tools.git`);
    await git(work, 'push', '-q', 'origin', 'main');
    env = {
      HLDP_REPO: `${gitServer.url}/tools.git`, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path,
      HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKEN, HLDP_POLL_INTERVAL_MS: '300',
    };
    server = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await gitServer?.close();
    await temp?.cleanup();
  });

  it('1. shows a failing CLI call in the failures view within a second, and its raw stderr byte for byte', async () => {
    await page.goto(`${server.url}/console/failures`);
    await page.waitForSelector('.live.connected');
    const cli = await runCli(['call', 'fail', '--json'], { env });
    const stored = Date.now();
    expect(cli.code).toBe(1);
    const id = JSON.parse(cli.stdout).id as string;
    // the receipt was stored when the CLI exited: the row must be there within a second, without a reload
    await page.waitForSelector(`tr[data-receipt="${id}"]`, { timeout: 1000 });
    expect(Date.now() - stored).toBeLessThanOrEqual(1000);
    expect(await page.locator(`tr[data-receipt="${id}"]`).getAttribute('class')).toBe('failed');
    await screenshot(page, 'failures');
    await page.click(`tr[data-receipt="${id}"] a`);
    await page.waitForURL(new RegExp(`/console/receipts/${id}`));
    expect(await page.locator('#error').textContent()).toBe(FAIL_STDERR);
    expect(await page.locator('#output').textContent()).toBe('partial output\n');
    const api = await request(server, 'GET', `/v1/receipts/${id}`, { headers: auth });
    expect(await page.locator('#error').textContent()).toBe(api.json.error);
    await expect(page.locator('dl.facts').first().textContent()).resolves.toContain(api.json.commit);
    await expect(page.locator('section.definition').textContent()).resolves.toContain('the console shows a failure exactly as the tool wrote it');
    await screenshot(page, 'receipt');
  });

  it('2. shows a tool output that is an XSS payload as text, and runs none of it', async () => {
    const payload = `<script>alert('script ran')</script><img src=x onerror="alert('img ran')"><svg onload="alert('svg ran')"></svg>"'\`&amp;`;
    const call = await request(server, 'POST', '/v1/call', { headers: auth, body: { tool: 'say', params: { text: payload } } });
    expect(call.json.output).toBe(payload);
    await page.goto(`${server.url}/console/receipts/${call.json.id}`);
    expect(await page.locator('#output').textContent()).toBe(payload);
    // the page's own DOM, probed from inside (a string: this file is compiled without the DOM's types)
    const probe = (await page.evaluate(`({
      injected: document.querySelectorAll('main script, main img, main svg, main [onerror], main [onload]').length,
      scripts: Array.from(document.scripts).map((script) => script.getAttribute('src')),
    })`)) as { injected: number; scripts: string[] };
    expect(probe.injected).toBe(0);
    expect(probe.scripts).toEqual(['/console/assets/htmx.min.js', '/console/assets/console.js']);
    await page.goto(`${server.url}/console/failures?status=all`);
    await page.waitForSelector(`tr[data-receipt="${call.json.id}"]`);
    // a tool name is whatever the agent sent: the rejected view (read from the store) shows it as text too
    const refused = await request(server, 'POST', '/v1/call', { headers: auth, body: { tool: payload, params: {} } });
    expect(refused.status).toBe(404);
    // the record is written after the answer: wait until the API lists it
    for (let tries = 0; !(await request(server, 'GET', '/v1/rejections?limit=5', { headers: auth })).json.rejections.some((rejection: { tool: string }) => rejection.tool === payload); tries += 1) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await page.goto(`${server.url}/console/rejected`);
    expect(await page.locator('tr[data-rejection] td[data-label="Tool"]').first().textContent()).toBe(payload);
    expect(await page.evaluate(`document.querySelectorAll('main script, main img, main svg, main [onerror], main [onload]').length`)).toBe(0);
    await screenshot(page, 'rejected');
    expect(dialogs).toEqual([]);
  });

  it('3. decides a pending confirmation from the page, and the receipt appears', async () => {
    const pending = await askConfirmation('from the page');
    await page.goto(`${server.url}/console/approvals`);
    const card = page.locator('li.approval', { hasText: 'from the page' });
    await card.waitFor();
    await screenshot(page, 'approvals');
    await card.locator('input[name=reason]').fill('checked the text');
    await card.locator('button.approve').click();
    await page.waitForURL(/\/console\/receipts\//);
    expect(await page.locator('#output').textContent()).toBe('noted: from the page');
    const id = page.url().split('/').pop()!;
    const receipt = await request(server, 'GET', `/v1/receipts/${id}`, { headers: auth });
    expect(receipt.json).toMatchObject({ ok: true, tool: 'note', confirmation: expect.stringMatching(/^apr_/), approval: expect.objectContaining({ decided_by: 'admin', reason: 'checked the text' }) });
    // the token is used: the agent cannot run it a second time
    expect((await request(server, 'POST', '/v1/confirm', { headers: auth, body: { token: pending.token } })).status).toBe(409);
    await page.goto(`${server.url}/console/approvals`);
    await expect(page.locator('table.plain').textContent()).resolves.toContain('checked the text');
  });

  it('3b. keeps the approvals page still while a new request arrives: it says so, and its button does not move under the cursor', async () => {
    const first = await askConfirmation('already shown');
    await page.goto(`${server.url}/console/approvals`);
    await page.waitForSelector('.live.connected');
    const shownFirst = await page.locator('li.approval').first().getAttribute('data-approval');
    const button = await page.locator('li.approval').first().locator('button.approve').boundingBox();
    // a reload would drop this mark
    await page.evaluate('window.stillHere = true');
    const later = await askConfirmation('arrived later');
    const notice = page.locator('#live-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toBe('1 new request since this page was shown: show them');
    expect(await page.evaluate('window.stillHere')).toBe(true);
    // the element under the approver's cursor is still the first request's Approve button
    const under = await page.evaluate(`document.elementFromPoint(${button!.x + button!.width / 2}, ${button!.y + button!.height / 2})?.closest('li.approval')?.getAttribute('data-approval')`);
    expect(under).toBe(shownFirst);
    await notice.locator('a').click();
    await page.locator('li.approval', { hasText: 'arrived later' }).waitFor();
    // leave the live page, and settle both requests so that later tests start from an empty queue
    await page.goto('about:blank');
    for (const pending of [first, later]) expect((await request(server, 'POST', '/v1/confirm', { headers: auth, body: { token: pending.token } })).status).toBe(200);
  });

  it('3c. never approves on Enter in the Reason box: on the list, on the request\'s own page, and without JavaScript (review userZ6 F1)', async () => {
    // a reason typed to deny, then Enter (implicit submission picked the form's first button, Approve and run: the call
    // ran), then the Deny button: the request must end denied, and the only decision the page ever sent is deny
    async function enterThenDeny(target: Page, text: string, ownPage: boolean): Promise<void> {
      await askConfirmation(text);
      await target.goto(`${server.url}/console/approvals`);
      const id = (await target.locator('li.approval', { hasText: text }).getAttribute('data-approval'))!;
      if (ownPage) await target.goto(`${server.url}/console/approvals/${encodeURIComponent(id)}`);
      const sent: string[] = [];
      const watch = (posted: Request) => {
        if (posted.method() === 'POST' && posted.url().endsWith('/decide')) sent.push(new URLSearchParams(posted.postData() ?? '').get('decision') ?? '(none)');
      };
      target.on('request', watch);
      try {
        const card = target.locator(`li.approval[data-approval="${id}"]`);
        await card.locator('input[name=reason]').fill('no - this is not for agents, deny');
        await card.locator('input[name=reason]').press('Enter');
        // a decision answers with a page saying what came of it (a generous guard at load, not a measure)
        await Promise.all([target.waitForURL(/[?&]notice=/, { timeout: 30_000 }), card.locator('button.deny').click()]);
        expect({ text, sent }).toEqual({ text, sent: ['deny'] });
        const decided = await request(server, 'GET', `/v1/approvals/${encodeURIComponent(id)}`, { headers: auth });
        expect({ text, status: decided.json.approval?.status }).toEqual({ text, status: 'denied' });
      } finally {
        target.off('request', watch);
        await target.goto('about:blank');
      }
    }
    await enterThenDeny(page, 'enter on the list', false);
    await enterThenDeny(page, 'enter on its own page', true);
    const noScript = await launchChromium({ javaScriptEnabled: false });
    try {
      const plain = await noScript.context.newPage();
      await signIn(plain);
      await enterThenDeny(plain, 'enter without javascript', false);
    } finally {
      await noScript.close();
    }
  });

  it('4. shows a broken TOOL.hdlp pushed to the served repository in the registry, with its file:line:col', async () => {
    await page.goto(`${server.url}/console/registry`);
    await page.waitForSelector('.live.connected');
    // an author pushes: git push over smart HTTP to the repository the gateway serves (and polls)
    await commitFiles(work, { 'tools/broken/TOOL.hdlp': 'name: broken\ndisplay: Broken\nintent: [never closed\n' });
    await git(work, 'push', '-q', 'origin', 'main');
    const item = page.locator('li.diagnostic', { hasText: 'tools/broken/TOOL.hdlp' });
    // a guard against a hang, not a measure: the poll (300 ms) and the page's reload took over 15 s at load ~30
    await item.waitFor({ timeout: 45_000 });
    expect(await item.locator('code').textContent()).toMatch(/^tools\/broken\/TOOL\.hdlp:\d+:\d+$/);
    await screenshot(page, 'registry');
    // leave the page before the repository changes again: a live page reloads on the next scan
    await page.goto('about:blank');
    await commitFiles(work, { 'tools/broken': null });
    await git(work, 'push', '-q', 'origin', 'main');
    // served before the next test asks for a confirmation (bound to the commit)
    expect((await request(server, 'POST', '/v1/scan', { headers: auth })).status).toBe(200);
  });

  it('5. refuses a state-changing request without the CSRF token, and keeps the sign-in cookie out of reach of scripts', async () => {
    const pending = await askConfirmation('csrf probe');
    await page.goto(`${server.url}/console/approvals`);
    const approval = await page.locator('li.approval', { hasText: 'csrf probe' }).getAttribute('data-approval');
    const status = await page.evaluate(async (id) => {
      const body = new URLSearchParams({ decision: 'approve', reason: 'no token' });
      const response = await fetch(`/console/approvals/${encodeURIComponent(id!)}/decide`, { method: 'POST', body, redirect: 'manual' });
      return response.status;
    }, approval);
    expect(status).toBe(403);
    expect(await page.evaluate('document.cookie')).not.toContain('hldp_console');
    // leave the live page (it reloads when the approval is resolved), then check that nothing ran: the token still works
    await page.goto('about:blank');
    expect((await request(server, 'POST', '/v1/confirm', { headers: auth, body: { token: pending.token } })).status).toBe(200);
    // the cookie is the console's alone (Path=/console): not sent for the gateway's other paths
    expect(await browser.context.cookies(server.url)).toEqual([]);
    const [cookie] = await browser.context.cookies(`${server.url}/console/failures`);
    expect(cookie).toMatchObject({ name: 'hldp_console', path: '/console', httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.value).not.toContain(TOKEN);
    const csp = (await page.goto(`${server.url}/console/failures`))!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('works on a phone: the failures view fits a 390-pixel screen without sideways scrolling', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/console/failures`);
    await phone.waitForSelector('tr.failed');
    const overflow = (await phone.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(phone, 'failures-phone');
    await phone.close();
  });

  it('works on a phone: the approvals view\'s decisions are cards, each one\'s reason and receipt link on the screen (review userZ6 F6)', async () => {
    // the earlier tests decided requests: their decisions are listed under "Decided lately"
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 360, height: 800 });
    try {
      await phone.goto(`${server.url}/console/approvals`);
      const link = phone.locator('table[data-decided] tbody tr').first().locator('td[data-label="Receipt"] a');
      const box = (await link.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      const table = (await phone.evaluate('(() => { const table = document.querySelector("table[data-decided]"); return table.scrollWidth - table.clientWidth; })()')) as number;
      expect(table).toBeLessThanOrEqual(0);
    } finally {
      await phone.close();
    }
  });
});
