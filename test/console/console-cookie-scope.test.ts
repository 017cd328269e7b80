import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyRepository, startGateway, TOKENS } from '../policy/support.js';

// A browser sends a host's cookies to every port of it: any other server on 127.0.0.1 (a notebook, a dev server)
// received the console's 12-hour sign-in cookie with every request the person's browser made to it (review J).
// The cookie is now as narrow as a cookie can be: Path=/console over plain http; __Host- (Secure, Path=/, no
// Domain) over https, which no plain-http server receives and none can set or shadow.
let repo: string;
let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  ({ repo, temp } = await policyRepository({}));
});
afterAll(() => temp.cleanup());

/** Signs in to a real `hldp serve` as alice, reads a page with the cookie, signs out; the Set-Cookie headers of both. */
async function signInAndOut(config?: string): Promise<{ signIn: string[]; signOut: string[]; page: number }> {
  const gateway = await startGateway(repo, temp.path, config ? { config } : {});
  try {
    const origin = new URL(gateway.url).origin;
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin };
    const signedIn = await fetch(`${gateway.url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: form, body: new URLSearchParams({ token: TOKENS.alice }) });
    const signIn = signedIn.headers.getSetCookie();
    const cookie = signIn[0]!.split(';')[0]!;
    const page = await fetch(`${gateway.url}/console/approvals`, { headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const signedOut = await fetch(`${gateway.url}/console/sign-out`, { method: 'POST', redirect: 'manual', headers: { ...form, cookie }, body: new URLSearchParams({ _csrf: csrf }) });
    return { signIn, signOut: signedOut.headers.getSetCookie(), page: page.status };
  } finally {
    await gateway.service.stop();
  }
}

describe('the console sign-in cookie\'s scope', () => {
  describe('over plain http (loopback)', () => {
    it('is set for /console only, HttpOnly and SameSite=Strict, and a sign-in under the old Path=/ is cleared', async () => {
      const { signIn, signOut, page } = await signInAndOut();
      expect(page).toBe(200);
      expect(signIn[0]).toMatch(/^hldp_console=[^;]+; Path=\/console; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
      expect(signIn.slice(1)).toEqual([expect.stringMatching(/^hldp_console=; Path=\/; Expires=Thu, 01 Jan 1970/)]);
      expect(signOut).toEqual([expect.stringMatching(/^hldp_console=; Path=\/console; Expires=Thu, 01 Jan 1970/), expect.stringMatching(/^hldp_console=; Path=\/; Expires=Thu, 01 Jan 1970/)]);
    });
  });

  describe('over https (console.secure_cookies)', () => {
    it('is a __Host- cookie: Secure, Path=/, no Domain', async () => {
      const { signIn, signOut, page } = await signInAndOut('console:\n  secure_cookies: true\n');
      expect(page).toBe(200);
      expect(signIn[0]).toMatch(/^__Host-hldp_console=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/);
      expect(signIn[0]).not.toMatch(/Domain=/i);
      expect(signOut[0]).toMatch(/^__Host-hldp_console=; Path=\/; Expires=Thu, 01 Jan 1970/);
    });
  });
});
