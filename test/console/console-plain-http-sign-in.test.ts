import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithChromium, launchChromium } from '../helpers/browser.js';
import { policyRepository, startGateway, TOKENS } from '../policy/support.js';

// Review N (N24): a gateway listening beyond loopback sets its sign-in cookie Secure (console.secure_cookies: auto), and
// a browser that opened the console over plain http at the host's own address dropped that cookie: the sign-in
// "succeeded", and every page sent the person back to sign in, without a word. The browser reaches the gateway (bound
// to 0.0.0.0) under a name that is not loopback, gateway.test, mapped to 127.0.0.1 by chromium's resolver: a plain-http
// origin as a LAN address is, with no LAN address needed.
const NAME = 'gateway.test';
let repo: string;
let temp: { path: string; cleanup: () => Promise<void> };
let browser: { context: BrowserContext; close: () => Promise<void> };

/** Signs in as alice at `origin` of a real `hldp serve` listening on 0.0.0.0 with `env`; where the browser ends, what it says, and the cookies it kept. */
async function signInOverPlainHttp(env: NodeJS.ProcessEnv, host: string): Promise<{ path: string; alert: string | null; cookies: string[]; status: number | undefined }> {
  const gateway = await startGateway(repo, temp.path, { env: { HLDP_HOST: '0.0.0.0', ...env }, logLevel: 'warn' });
  const page = await browser.context.newPage();
  try {
    await browser.context.clearCookies();
    const origin = `http://${host}:${new URL(gateway.url).port}`;
    await page.goto(`${origin}/console/approvals`);
    await page.waitForURL(/\/console\/sign-in/);
    await page.fill('#token', TOKENS.alice);
    const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.click('button[type=submit]')]);
    await page.waitForLoadState('load');
    const alert = (await page.locator('[role=alert]').count()) ? await page.locator('[role=alert]').textContent() : null;
    return { path: new URL(page.url()).pathname, alert, cookies: (await browser.context.cookies()).map((cookie) => cookie.name), status: answer.status() };
  } finally {
    await page.close();
    await gateway.service.stop();
  }
}

describeWithChromium('signing in to the console over plain http (review N, N24)', () => {
  beforeAll(async () => {
    ({ repo, temp } = await policyRepository({}));
    browser = await launchChromium({ args: [`--host-resolver-rules=MAP ${NAME} 127.0.0.1`] });
  });
  afterAll(async () => {
    await browser?.close();
    await temp?.cleanup();
  });

  describe('when the gateway listens beyond loopback (Secure cookies by default) and the page is not loopback', () => {
    it('signs no one in and says why, and how to reach the console instead', async () => {
      const signed = await signInOverPlainHttp({}, NAME);
      expect(signed.status).toBe(400);
      expect(signed.path).toBe('/console/sign-in');
      expect(signed.cookies).toEqual([]);
      expect(signed.alert).toContain(`this page came over plain http (http://${NAME}:`);
      expect(signed.alert).toContain('Open the console over https');
      expect(signed.alert).toContain('console.secure_cookies: false (HLDP_CONSOLE_SECURE_COOKIES=false)');
    });
  });

  describe('when the same gateway is opened at 127.0.0.1, where a browser keeps a Secure cookie over plain http', () => {
    it('signs in and shows the page asked for', async () => {
      expect(await signInOverPlainHttp({}, '127.0.0.1')).toMatchObject({ path: '/console/approvals', alert: null, cookies: ['__Host-hldp_console'] });
    });
  });

  describe('when console.secure_cookies is false', () => {
    it('signs in over plain http at a name that is not loopback', async () => {
      expect(await signInOverPlainHttp({ HLDP_CONSOLE_SECURE_COOKIES: 'false' }, NAME)).toMatchObject({ path: '/console/approvals', alert: null, cookies: ['hldp_console'] });
    });
  });
});
