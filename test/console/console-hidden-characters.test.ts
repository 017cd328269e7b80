import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithChromium, launchChromium } from '../helpers/browser.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review N (N17): a right-to-left override, an isolate or a zero-width character in what the console shows (a
// definition's words, a rejected call's tool name, a call's output and error, an approval's params) reordered or hid
// the text around it: '\u202ecexe-llehs' read as "shell-exec". Every view now shows each as its escape, marked, as the
// CLI's list/validate/serve do; the copy button still copies the text exactly as stored.
const TOKEN = 'hidden-characters-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
// what reorders or hides text, and the controls a browser shows as nothing (not tab, line feed or carriage return)
const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;
const DISGUISED = '\u202ecexe-llehs';
const OUTPUT = 'report\u202etxt.exe \u2066hidden\u2069 zero\u200bwidth \u001b[31mred';

let temp: { path: string; cleanup: () => Promise<void> };
let server: ServiceProcess;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

/** What the page shows a person: its title and the text of its body, as rendered. */
async function shown(path: string): Promise<string> {
  await page.goto(`${server.url}${path}`);
  return `${await page.title()}\n${await page.locator('body').innerText()}`;
}

describeWithChromium('the console shows characters that hide or reorder text as escapes (review N, N17)', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-console-hidden-');
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, {
      'tools/mirror/TOOL.hdlp': makeToolYaml('mirror', {
        executor: 'shell', method: 'run', display: 'Mirror', intent: 'writes its text to stdout and stderr, then fails',
        params_schema: '{ text: { type: string, required: true } }', shell: `{ argv: [sh, -c, 'printf "%s" "$1"; printf "%s" "$1" >&2; exit 3', sh, "{text}"] }`,
      }),
      // review userX, X10: a definition that hides text is refused (INVISIBLE_TEXT); the registry names it broken, and
      // what its diagnostics quote of it (an unknown field's name) is shown escaped
      'tools/disguised/TOOL.hdlp': `${makeToolYaml('disguised', { executor: 'shell', method: 'run', display: '"Mirror \u202eeliF"', author: '"ICE\u2066-GL"', shell: '{ argv: [true] }' })}"key\u202eX": 1\n`,
      'tools/note/TOOL.hdlp': makeToolYaml('note', {
        executor: 'shell', method: 'run', params_schema: '{ text: { type: string, required: true } }', shell: '{ argv: [printf, "%s", "{text}"] }', constraints: '{ require_confirm: true }',
      }),
    });
    server = await spawnService(['serve', '--port', '0', '--repo', repo], {
      HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKEN,
    }, / at (http:\/\/[\d.:]+)\n/);
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(`${server.url}/console/sign-in`);
    await page.fill('#token', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/console\/failures/);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await temp?.cleanup();
  });

  it('shows a call\'s output and error escaped in the Calls list and the receipt, and copies them exactly as stored', async () => {
    const call = await request(server, 'POST', '/v1/call', { headers: auth, body: { tool: 'mirror', params: { text: OUTPUT } } });
    expect(call.json).toMatchObject({ ok: false, output: OUTPUT });
    const list = await shown('/console/failures');
    expect(list).not.toMatch(HIDDEN);
    expect(list).toContain(String.raw`report\u202etxt.exe \u2066hidden\u2069 zero\u200bwidth \x1b[31mred`);
    const receipt = await shown(`/console/receipts/${call.json.id}`);
    expect(receipt).not.toMatch(HIDDEN);
    expect(await page.locator('#output .hidden-character').allTextContents()).toEqual([String.raw`\u202e`, String.raw`\u2066`, String.raw`\u2069`, String.raw`\u200b`, String.raw`\x1b`]);
    expect(receipt).toContain(String.raw`"text": "report\u202etxt.exe`);
    // the copy button hands over the raw text, not the escapes shown
    await page.evaluate(`navigator.clipboard.writeText = (text) => { window.copied = text; return Promise.resolve(); }`);
    await page.click('button[data-copy="output"]');
    expect(await page.evaluate('window.copied')).toBe(OUTPUT);
  });

  it('names a definition that hides text broken in the registry, and shows what it quotes escaped', async () => {
    const registry = await shown('/console/registry');
    expect(registry).not.toMatch(HIDDEN);
    expect(registry).toMatch(/tools\/disguised\/TOOL\.hdlp:2:\d+ INVISIBLE_TEXT this line holds U\+202E/);
    expect(registry).toMatch(/tools\/disguised\/TOOL\.hdlp:\d+:\d+ INVISIBLE_TEXT this line holds U\+2066/);
    expect(registry).toContain(String.raw`unknown field 'key\u202eX'`);
  });

  it('shows a rejected call\'s tool name escaped, so that it reads as no other tool', async () => {
    expect((await request(server, 'POST', '/v1/call', { headers: auth, body: { tool: DISGUISED, params: { text: OUTPUT } } })).status).toBe(404);
    for (let tries = 0; !(await request(server, 'GET', '/v1/rejections?limit=5', { headers: auth })).json.rejections.some((rejection: { tool: string }) => rejection.tool === DISGUISED); tries += 1) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const rejected = await shown(`/console/rejected?tool=${encodeURIComponent(DISGUISED)}`);
    expect(rejected).not.toMatch(HIDDEN);
    expect(await page.locator('tr[data-rejection] td[data-label="Tool"]').first().innerText()).toBe(String.raw`\u202ecexe-llehs`);
    // the filter box keeps the text as typed, so that filtering again finds the same calls
    expect(await page.inputValue('input[name=tool]')).toBe(DISGUISED);
  });

  it('shows an approval\'s params escaped', async () => {
    expect((await request(server, 'POST', '/v1/call', { headers: auth, body: { tool: 'note', params: { text: OUTPUT } } })).status).toBe(202);
    const approvals = await shown('/console/approvals');
    expect(approvals).not.toMatch(HIDDEN);
    expect(approvals).toContain(String.raw`report\u202etxt.exe`);
  });
});
