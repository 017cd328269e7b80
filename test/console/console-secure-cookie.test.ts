import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyRepository, startGateway, TOKENS } from '../policy/support.js';

// The console's sign-in cookie is a 12-hour credential: behind TLS it must never travel over plain http (review E3).
let repo: string;
let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  ({ repo, temp } = await policyRepository({}));
});
afterAll(() => temp.cleanup());

/** Signs in to a real `hldp serve` and signs out again; returns both Set-Cookie headers. */
async function signInAndOut(options: { config?: string; env?: NodeJS.ProcessEnv }): Promise<{ signIn: string; signOut: string }> {
  const gateway = await startGateway(repo, temp.path, options);
  try {
    // a gateway on 0.0.0.0 is reached at 127.0.0.1, where a browser keeps a Secure cookie over plain http: from any
    // other plain-http origin a Secure sign-in is refused with a reason (console-plain-http-sign-in.test.ts)
    const url = gateway.url.replace('//0.0.0.0:', '//127.0.0.1:');
    const origin = new URL(url).origin;
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin };
    const signedIn = await fetch(`${url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: form, body: new URLSearchParams({ token: TOKENS.alice }) });
    const signIn = signedIn.headers.get('set-cookie')!;
    const cookie = signIn.split(';')[0]!;
    const page = await (await fetch(`${url}/console/approvals`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const signedOut = await fetch(`${url}/console/sign-out`, { method: 'POST', redirect: 'manual', headers: { ...form, cookie }, body: new URLSearchParams({ _csrf: csrf }) });
    expect(signedOut.status).toBe(303);
    return { signIn, signOut: signedOut.headers.get('set-cookie')! };
  } finally {
    await gateway.service.stop();
  }
}

describe('the console sign-in cookie (found in review E3)', () => {
  it('is Secure on sign-in and sign-out when console.secure_cookies is true', async () => {
    const { signIn, signOut } = await signInAndOut({ config: 'console:\n  secure_cookies: true\n' });
    expect(signIn).toMatch(/^__Host-hldp_console=[^;]+;.*; Secure/);
    expect(signOut).toMatch(/^__Host-hldp_console=;.*; Secure/);
  });

  it('is Secure by default when the gateway listens beyond loopback', async () => {
    expect((await signInAndOut({ env: { HLDP_HOST: '0.0.0.0' } })).signIn).toMatch(/; Secure/);
  });

  it('is not Secure beyond loopback when HLDP_CONSOLE_SECURE_COOKIES=false', async () => {
    expect((await signInAndOut({ env: { HLDP_HOST: '0.0.0.0', HLDP_CONSOLE_SECURE_COOKIES: 'false' } })).signIn).not.toMatch(/Secure/);
  });

  it('is not Secure by default on loopback, where a browser reaches it over plain http', async () => {
    expect((await signInAndOut({})).signIn).not.toMatch(/Secure/);
  });
});
