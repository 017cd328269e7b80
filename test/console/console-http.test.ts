import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, escapeHtml, html, raw } from '../../src/console/index.js';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { makeTempDir } from '../helpers/git.js';
import { startTestServer } from '../helpers/http-server.js';
import { runs } from '../helpers/property-runs.js';

const TOKEN = 'console-http-token-0123456789';

describe('html', () => {
  it('escapes every interpolation, joins arrays, and leaves Html and raw() as they are', () => {
    const name = `<img src=x onerror="alert(1)">`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe('<p title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>');
    expect(html`<ul>${['a<', 'b&'].map((item) => html`<li>${item}</li>`)}</ul>`.text).toBe('<ul><li>a&lt;</li><li>b&amp;</li></ul>');
    expect(html`${raw('<b>')}${null}${undefined}${false}${0}`.text).toBe('<b>0');
  });

  it('makes text that holds no markup character, and decodes back to the text (property)', () => {
    const decode = (text: string) => text.replace(/&(lt|gt|quot|amp|#39|#96|#13);/g, (_entity, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&', '#39': "'", '#96': '`', '#13': '\r' })[name]!);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"'`\r]/);
        expect(decode(escaped)).toBe(text);
      }),
      { numRuns: runs(500) },
    );
  });
});

describe('the console over HTTP', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let open: Awaited<ReturnType<typeof startTestServer>>;

  beforeAll(async () => {
    temp = await makeTempDir('hldp-console-http-');
    const repo = await makeConsoleRepository(temp.path);
    server = await startTestServer(repo, { HLDP_API_TOKEN: TOKEN });
    open = await startTestServer(repo);
  });
  afterAll(async () => {
    await server?.cleanup();
    await open?.cleanup();
    await temp?.cleanup();
  });

  const origin = () => new URL(server.url).origin;
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin(), ...headers }, body: new URLSearchParams(body) });
  async function signIn(): Promise<{ cookie: string; csrf: string }> {
    const response = await post('/console/sign-in', { token: TOKEN });
    expect(response.status).toBe(303);
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await fetch(`${server.url}/console/approvals`, { headers: { cookie } })).text();
    return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]! };
  }

  it('sends a person who is not signed in to the sign-in page, and answers the API without a cookie as before', async () => {
    const response = await fetch(`${server.url}/console/failures?status=all`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/console/sign-in?next=%2Fconsole%2Ffailures%3Fstatus%3Dall');
    expect((await fetch(`${server.url}/console/events`)).status).toBe(401);
  });

  it('refuses a wrong token, a sign-in posted from another site, and a forged or tampered cookie', async () => {
    const wrong = await post('/console/sign-in', { token: 'not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const foreign = await post('/console/sign-in', { token: TOKEN }, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const { cookie } = await signIn();
    const [name, value] = cookie.split('=');
    const [payload, signature] = value!.split('.');
    const forged = `${name}=${Buffer.from(JSON.stringify({ p: 'admin', e: Date.now() + 3_600_000, n: 'x' })).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${name}=${payload}.${signature!.slice(0, -2)}AA`, `${name}=garbage`]) {
      expect((await fetch(`${server.url}/console/failures`, { headers: { cookie: bad }, redirect: 'manual' })).status).toBe(303);
    }
    expect((await fetch(`${server.url}/console/failures`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);
  });

  it.each([['%E0%A4%A'], ['%'], ['%ZZ']])('treats a cookie that is not valid percent-encoding (%s) as signed out, not as a store failure', async (value) => {
    const page = await fetch(`${server.url}/console/failures`, { headers: { cookie: `hldp_console=${value}` }, redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toMatch(/sign-in/);
  });

  it('refuses a state-changing request from another origin even with the right CSRF token, and one without the token', async () => {
    const { cookie, csrf } = await signIn();
    const decide = (headers: Record<string, string>, body: Record<string, string>) => post('/console/approvals/sha256%3A00/decide', body, { cookie, ...headers });
    expect((await decide({ origin: 'http://evil.example' }, { _csrf: csrf, decision: 'deny' })).status).toBe(403);
    expect((await decide({}, { decision: 'deny' })).status).toBe(403);
    expect((await decide({}, { _csrf: `${csrf}x`, decision: 'deny' })).status).toBe(403);
    // the right token from this origin gets through to the decision (there is no such approval)
    const through = await decide({}, { _csrf: csrf, decision: 'deny' });
    expect(through.status).toBe(303);
    expect(through.headers.get('location')).toMatch(/notice=no%20approval%20request/);
  });

  it('shows only a notice it put in the link itself, for this sign-in: not text a link brings (review P, P8)', async () => {
    const { cookie, csrf } = await signIn();
    const decided = await post('/console/approvals/sha256%3A00/decide', { _csrf: csrf, decision: 'deny' }, { cookie });
    const location = decided.headers.get('location')!;
    const page = (path: string, as = cookie) => fetch(`${server.url}${path}`, { headers: { cookie: as } }).then((response) => response.text());
    expect(await page(location)).toMatch(/<p class="notice" role="status">no approval request/);
    // the approvers' page as a crafted link would show it: the console's own status line, in its words
    const crafted = '/console/approvals?notice=' + encodeURIComponent('Security update: paste your token at evil.example');
    expect(await page(crafted)).not.toContain('Security update');
    expect(await page(`${crafted}&tag=${new URL(location, server.url).searchParams.get('tag')}`)).not.toContain('Security update');
    // the console's own link, opened by another sign-in
    const other = await signIn();
    expect(await page(location, other.cookie)).not.toMatch(/role="status">no approval request/);
  });

  it('signs out: the cookie is cleared and no longer accepted', async () => {
    const { cookie, csrf } = await signIn();
    const out = await post('/console/sign-out', { _csrf: csrf }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/hldp_console=;/);
    expect((await fetch(`${server.url}/console/failures`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
  });

  it('puts the strict CSP on every response, the API included', async () => {
    for (const path of ['/console/sign-in', '/healthz', '/v1/openapi.json', '/console/assets/console.js', '/nope']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|\*/);
  });

  it('applies the loopback Host guard to the console', async () => {
    const { port } = new URL(server.url);
    // fetch will not set Host; a raw request does, as a DNS-rebinding page's would
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/console/sign-in', headers: { host: `evil.example:${port}` } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      }).on('error', reject).end();
    });
    expect(status).toBe(403);
  });

  it('serves htmx from its npm package and nothing unlisted', async () => {
    const htmx = await fetch(`${server.url}/console/assets/htmx.min.js`);
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await htmx.text()).toContain('htmx');
    expect((await fetch(`${server.url}/console/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/console/assets/constructor`)).status).toBe(404);
  });

  it('lets the person at the machine in without a token when the gateway has no credentials (loopback)', async () => {
    const page = await (await fetch(`${open.url}/console/sign-in`)).text();
    expect(page).not.toContain('name="token"');
    const response = await fetch(`${open.url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(open.url).origin }, body: '' });
    expect(response.status).toBe(303);
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const failures = await (await fetch(`${open.url}/console/failures`, { headers: { cookie } })).text();
    expect(failures).toContain('<span>local</span>');
  });
});
