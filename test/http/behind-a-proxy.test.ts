// Review userZ4, F12. README calls "behind a TLS proxy" the deployment beyond loopback, but a proxy on the same host in
// front of a loopback gateway could not work: a proxy keeping the Host got 403 FORBIDDEN_HOST, one rewriting it to
// 127.0.0.1 got the console's sign-in refused (403 CSRF_REFUSED: the browser's Origin was not 127.0.0.1's). Only a
// gateway listening on 0.0.0.0 over plain http took the proxied sign-in. Now `listen.public_url` names the address the
// proxy serves: its host passes the Host guard, its origin the console's Origin check, and an https one makes the
// sign-in cookie Secure (`__Host-`); nothing else widens. A gateway without credentials refuses a non-loopback
// public_url at start, and serves no request a proxy forwarded (a forwarding header) as `local`.
// No proxy runs here: the requests carry what a proxy sends (its Host, the browser's Origin, X-Forwarded-For).
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { policyRepository, startGateway, TOKENS } from '../policy/support.js';

const PUBLIC = 'https://hldp.example.com';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request to the gateway at `url` with the Host, Origin and other headers chosen, as a proxy forwards a browser's. */
function send(url: string, path: string, options: { method?: string; host?: string; headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<Answer> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      new URL(path, url),
      {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        headers: { ...(options.host ? { host: options.host } : {}), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }), ...options.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** One HTTP/1.0 request, as nginx's bare `proxy_pass` forwards a browser's (its Host rewritten to the upstream's address). */
function sendHttp10(url: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; setCookie: string; text: string }> {
  const { hostname, port, host } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [`${body ? 'POST' : 'GET'} ${path} HTTP/1.0`, `Host: ${host}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
      if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
      socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', rest = ''] = text.split('\r\n\r\n');
      const setCookie = head.split('\r\n').filter((line) => /^set-cookie:/i.test(line)).map((line) => line.replace(/^set-cookie:\s*/i, '')).join('\n');
      resolve({ status: Number(/^HTTP\/1\.\d (\d+)/.exec(head)?.[1]), setCookie, text: rest });
    });
  });
}

const bearer = (who: keyof typeof TOKENS): Record<string, string> => ({ authorization: `Bearer ${TOKENS[who]}` });
const setCookie = (answer: Answer): string => [answer.headers['set-cookie'] ?? []].flat().join('\n');

let repo: string;
let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  ({ repo, temp } = await policyRepository({}));
});
afterAll(() => temp.cleanup());

// each describe starts one cold hldp serve: over 25 s at load 20 on 2 cores
describe('a gateway on 127.0.0.1 with principals and listen.public_url https://hldp.example.com (a TLS proxy on the same host)', { timeout: 120_000 }, () => {
  let url: string;
  let stop: () => Promise<unknown>;
  beforeAll(async () => {
    const started = await startGateway(repo, temp.path, { config: `listen:\n  public_url: ${PUBLIC}\n`, env: { HLDP_DATA_DIR: join(temp.path, 'data-public') } });
    url = started.url;
    stop = () => started.service.stop();
  }, 120_000);
  afterAll(() => stop?.(), 60_000);

  it('serves the API to a proxy that keeps the Host (also with the default port written out, in any case)', async () => {
    for (const host of ['hldp.example.com', 'HLDP.Example.COM:443']) {
      const tools = await send(url, '/v1/tools', { host, headers: bearer('alice') });
      expect(tools.status, tools.text).toBe(200);
    }
    // the credentials still decide: the public name admits no one by itself
    expect((await send(url, '/v1/tools', { host: 'hldp.example.com' })).status).toBe(401);
  });

  it('still refuses any other name (a page rebinding its own name to 127.0.0.1), and the public name on another port', async () => {
    for (const host of ['attacker.example', 'hldp.example.com:8443', 'hldp.example.com.attacker.example', `attacker.example:${new URL(url).port}`]) {
      const tools = await send(url, '/v1/tools', { host, headers: bearer('alice') });
      expect(tools.status, host).toBe(403);
      expect(JSON.parse(tools.text)).toMatchObject({ code: 'FORBIDDEN_HOST' });
      expect(JSON.parse(tools.text).error).toContain('listen.public_url');
    }
  });

  it("signs a browser in through the proxy, keeping or rewriting the Host, with a Secure __Host- cookie; the console's forms work through it", async () => {
    for (const host of ['hldp.example.com', undefined]) {
      const signIn = await send(url, '/console/sign-in', { ...(host ? { host } : {}), headers: { origin: PUBLIC }, form: { token: TOKENS.alice } });
      expect(signIn.status, signIn.text).toBe(303);
      expect(setCookie(signIn)).toMatch(/^__Host-hldp_console=[^;]+;.*Path=\/;.*HttpOnly;.*Secure/m);
      const cookie = setCookie(signIn).split(';')[0]!;
      const page = await send(url, '/console/approvals', { host: host ?? new URL(url).host, headers: { cookie } });
      expect(page.status).toBe(200);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
      // a foreign Origin is refused even with the CSRF token; the console's own passes
      const foreign = await send(url, '/console/sign-out', { ...(host ? { host } : {}), headers: { cookie, origin: 'https://attacker.example' }, form: { _csrf: csrf } });
      expect(foreign.status).toBe(403);
      const signOut = await send(url, '/console/sign-out', { ...(host ? { host } : {}), headers: { cookie, origin: PUBLIC }, form: { _csrf: csrf } });
      expect(signOut.status, signOut.text).toBe(303);
    }
  });

  it("refuses a sign-in whose Origin is another site's, or the public name over plain http", async () => {
    for (const origin of ['https://attacker.example', 'http://hldp.example.com', 'https://hldp.example.com:8443', 'null']) {
      const signIn = await send(url, '/console/sign-in', { host: 'hldp.example.com', headers: { origin }, form: { token: TOKENS.alice } });
      expect(signIn.status, origin).toBe(403);
      expect(JSON.parse(signIn.text)).toMatchObject({ code: 'CSRF_REFUSED' });
      expect(setCookie(signIn)).toBe('');
    }
  });

  it('still signs in at its own loopback address, with the plain-http cookie a browser keeps there; that cookie is read only there (review Z7, Z7-5)', async () => {
    const signIn = await send(url, '/console/sign-in', { headers: { origin: new URL(url).origin }, form: { token: TOKENS.alice } });
    expect(signIn.status, signIn.text).toBe(303);
    // the Secure __Host- cookie, set in answer to a plain-http page, was dropped by a browser that keeps Secure cookies
    // over https only (Safari, even from loopback): every page sent the operator back to sign-in
    expect(setCookie(signIn)).toMatch(/^hldp_console=[^;]+;.*Path=\/console;.*HttpOnly/m);
    expect(setCookie(signIn)).not.toMatch(/Secure|__Host-/);
    const cookie = setCookie(signIn).split('\n').find((line) => /^hldp_console=[^;]+/.test(line))!.split(';')[0]!;
    expect((await send(url, '/console/approvals', { headers: { cookie } })).status).toBe(200);
    // through the public URL, or forwarded by a proxy, the plain cookie signs no one in (a plain-http server could set it)
    expect((await send(url, '/console/approvals', { host: 'hldp.example.com', headers: { cookie } })).status).toBe(303);
    expect((await send(url, '/console/approvals', { headers: { cookie, 'x-forwarded-for': '192.0.2.7' } })).status).toBe(303);
  });

  // review Z9, Z9-1: behind a proxy that rewrites the Host to 127.0.0.1 and adds no forwarding header (nginx's bare
  // proxy_pass), a script's sign-in with no Origin looked direct and got the plain cookie, which was read before the
  // Secure one: planted in a browser (a plain cookie can be set over http), it signed alice's console in as bob
  it('gives a sign-in with no Origin the Secure cookie, and reads the Secure cookie before a planted plain one', async () => {
    const script = await send(url, '/console/sign-in', { form: { token: TOKENS.bob } });
    expect(script.status, script.text).toBe(303);
    expect(setCookie(script)).toMatch(/^__Host-hldp_console=[^;]+;.*Secure/m);
    const loopback = await send(url, '/console/sign-in', { headers: { origin: new URL(url).origin }, form: { token: TOKENS.bob } });
    const planted = setCookie(loopback).split('\n').find((line) => /^hldp_console=/.test(line))!.split(';')[0]!;
    const signIn = await send(url, '/console/sign-in', { headers: { origin: PUBLIC }, form: { token: TOKENS.alice } });
    const own = setCookie(signIn).split('\n').find((line) => /^__Host-hldp_console=/.test(line))!.split(';')[0]!;
    const signedInAs = (page: Answer): string | undefined => /class="who"[^]*?<span>([^<]*)<\/span>/.exec(page.text)?.[1];
    const both = await send(url, '/console/approvals', { headers: { cookie: `${planted}; ${own}` } });
    expect({ status: both.status, who: signedInAs(both) }).toEqual({ status: 200, who: 'alice' });
  });

  // review Z10, Z10-5: a script behind nginx's bare proxy_pass (the Host rewritten to 127.0.0.1:PORT, no forwarding
  // header) forged `Origin: http://127.0.0.1:PORT` and was given the plain cookie, which signs in a browser that holds
  // no Secure one. Such a proxy speaks HTTP/1.0 to its upstream, another may add Via: each gets the Secure cookie, and a
  // plain cookie is not read on such a request (a proxy speaking HTTP/1.1 with neither must send X-Forwarded-For: README)
  it('gives a forged loopback Origin through a proxy the Secure cookie: HTTP/1.0 (nginx), a Via header', async () => {
    const port = new URL(url).port;
    const origin = `http://127.0.0.1:${port}`;
    const nginx = await sendHttp10(url, '/console/sign-in', { origin, 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ token: TOKENS.bob }).toString());
    expect(nginx.status, nginx.text).toBe(303);
    expect(nginx.setCookie).toMatch(/^__Host-hldp_console=[^;]+;.*Secure/m);
    expect(nginx.setCookie).not.toMatch(/^hldp_console=[^;]/m);
    const via = await send(url, '/console/sign-in', { headers: { origin, via: '1.1 proxy.example' }, form: { token: TOKENS.bob } });
    expect(via.status, via.text).toBe(303);
    expect(setCookie(via)).toMatch(/^__Host-hldp_console=[^;]+;.*Secure/m);
    expect(setCookie(via)).not.toMatch(/^hldp_console=[^;]/m);
    // another loopback port's page is not this console's: refused outright, no cookie at all
    const otherPort = await send(url, '/console/sign-in', { headers: { origin: 'http://127.0.0.1:1' }, form: { token: TOKENS.bob } });
    expect(otherPort.status).toBe(403);
    expect(setCookie(otherPort)).toBe('');
    // the operator's own plain cookie is not read on a request that came through such a proxy
    const own = await send(url, '/console/sign-in', { headers: { origin }, form: { token: TOKENS.alice } });
    const plain = setCookie(own).split('\n').find((line) => /^hldp_console=/.test(line))!.split(';')[0]!;
    expect((await send(url, '/console/approvals', { headers: { cookie: plain } })).status).toBe(200);
    expect((await sendHttp10(url, '/console/approvals', { cookie: plain })).status).toBe(303);
    expect((await send(url, '/console/approvals', { headers: { cookie: plain, via: '1.1 proxy.example' } })).status).toBe(303);
  });
});

describe('the same gateway without listen.public_url', { timeout: 120_000 }, () => {
  let url: string;
  let stop: () => Promise<unknown>;
  beforeAll(async () => {
    const started = await startGateway(repo, temp.path, { env: { HLDP_DATA_DIR: join(temp.path, 'data-plain') } });
    url = started.url;
    stop = () => started.service.stop();
  }, 120_000);
  afterAll(() => stop?.(), 60_000);

  it("refuses the proxy's Host and the proxied browser's Origin, as before (nothing widens without the setting)", async () => {
    const tools = await send(url, '/v1/tools', { host: 'hldp.example.com', headers: bearer('alice') });
    expect(tools.status).toBe(403);
    expect(JSON.parse(tools.text)).toMatchObject({ code: 'FORBIDDEN_HOST' });
    const signIn = await send(url, '/console/sign-in', { headers: { origin: PUBLIC }, form: { token: TOKENS.alice } });
    expect(signIn.status).toBe(403);
    expect(JSON.parse(signIn.text)).toMatchObject({ code: 'CSRF_REFUSED' });
    expect(JSON.parse(signIn.text).error).toContain('set listen.public_url');
  });
});

describe('a gateway without credentials', { timeout: 120_000 }, () => {

  it('refuses to start with a public_url beyond this machine, naming the setting (every client the proxy forwards would be local)', async () => {
    const configFile = join(temp.path, 'bare-public.yaml');
    await writeFile(configFile, `listen:\n  public_url: ${PUBLIC}\n`);
    const run = await runCli(['serve', '--port', '0', '--repo', repo, '--config', configFile], {
      env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data-refused'), HLDP_WORKSPACE: temp.path },
      timeoutMs: 100_000,
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('hldp serve: listen.public_url: ');
    expect(run.stderr).toContain("'local'");
    expect(run.stderr).toContain('configure principals');
  });

  describe('on loopback, reached by the operator and by a proxy that rewrites the Host', () => {
    let url: string;
    let stop: () => Promise<unknown>;
    beforeAll(async () => {
      // no principals, no api_token (support's environment sets HLDP_API_TOKEN: undefined leaves it out)
      const started = await startGateway(repo, temp.path, { principals: '', env: { HLDP_API_TOKEN: undefined, HLDP_DATA_DIR: join(temp.path, 'data-bare') } });
      url = started.url;
      stop = () => started.service.stop();
    }, 120_000);
    afterAll(() => stop?.(), 60_000);

    it("serves the operator's own request as local, and refuses one a proxy forwarded (401 naming the header)", async () => {
      expect((await send(url, '/v1/tools')).status).toBe(200);
      for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
        const forwarded = await send(url, '/v1/tools', { headers: { [header]: header === 'forwarded' ? 'for=192.0.2.7;proto=https' : '192.0.2.7' } });
        expect(forwarded.status, header).toBe(401);
        expect(JSON.parse(forwarded.text).error).toContain(`carries ${header}`);
        expect(JSON.parse(forwarded.text).error).toContain('configure principals');
      }
      const signIn = await send(url, '/console/sign-in', { headers: { origin: new URL(url).origin, 'x-forwarded-for': '192.0.2.7' }, form: {} });
      expect(signIn.status).toBe(401);
      expect(setCookie(signIn)).toBe('');
    });
  });
});
