import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../src/executors/index.js';
import { joinUrl, shownJoinedUrl } from '../../src/executors/http-call.js';
import { makeToolDefinition } from './support/tool-definitions.js';

const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{1,8}$/).filter((text) => text !== '.' && text !== '..' && !/%(?![0-9A-F]{2})/i.test(text));
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
const value = fc.stringMatching(/^[A-Za-z0-9/?._~-]{0,10}$/);
const query = fc.uniqueArray(fc.tuple(name, value), { selector: ([key]) => key, maxLength: 4 });
const toolPath = fc.tuple(fc.array(fc.oneof(segment, fc.constantFrom('&appid=OTHER', '#frag', '%2F..')), { maxLength: 4 }), query);

// review Z4, F9: a configured URL's query held the tool's path inside its key's value (`/v1?appid=K/items/42?…`)
describe('joinUrl', () => {
  it('never changes the host, keeps the base path first and every base query parameter with its value', () => {
    fc.assert(
      fc.property(fc.constantFrom('http://api.example', 'https://127.0.0.1:8443', 'http://h.test:81'), fc.array(segment, { maxLength: 3 }), fc.boolean(), query, toolPath, (origin, basePath, slash, baseQuery, [own, ownQuery]) => {
        const search = baseQuery.map(([key, item]) => `${key}=${encodeURIComponent(item)}`).join('&');
        const base = `${origin}/${basePath.join('/')}${slash ? '/' : ''}${search ? `?${search}` : ''}`;
        const path = `/${own.join('/')}${ownQuery.length ? `?${ownQuery.map(([key, item]) => `${key}=${encodeURIComponent(item)}`).join('&')}` : ''}`;
        const joined = new URL(joinUrl(base, path));
        const configured = new URL(base);
        expect(joined.host).toBe(configured.host);
        expect(joined.protocol).toBe(configured.protocol);
        expect(joined.pathname.startsWith(configured.pathname.replace(/\/+$/, ''))).toBe(true);
        for (const [key, item] of baseQuery) expect(joined.searchParams.getAll(key)).toEqual([item]);
        for (const [key, item] of ownQuery) if (!baseQuery.some(([taken]) => taken === key)) expect(joined.searchParams.getAll(key)).toEqual([item]);
        // review Z4, F7: the configured path is never shown in an error's URL
        const shown = shownJoinedUrl(base, joined.toString());
        expect(shown.startsWith(`${configured.origin}/`)).toBe(true);
        if (basePath.length > 0) expect(shown.slice(configured.origin.length)).toMatch(/^\/\[configured path\]\//);
      }),
    );
  });
});

// review Z4, F4: a definition that reached the executor without the scan (an older index) still cannot pick the host
describe('hldp-api executor with a Host header in the definition', () => {
  let ingress: Server;
  let base: string;
  const hosts: string[] = [];
  beforeAll(async () => {
    // a real HTTP server on 127.0.0.1 standing in for a Host-routing ingress: it logs which virtual host each request asked for
    ingress = createServer((request, response) => {
      hosts.push(request.headers.host ?? '');
      request.resume();
      response.end('ok');
    });
    await new Promise<void>((resolve) => ingress.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(ingress.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => ingress.close(resolve));
  });

  it.each([
    ['Host', '{site}'],
    ['host', 'attacker-app.example.com'],
    ['Transfer-Encoding', 'chunked'],
    ['proxy-authorization', 'Basic x'],
  ])('refuses %s as EXECUTOR_MISCONFIGURED and sends nothing', async (header, template) => {
    const tool = makeToolDefinition({ executor: 'hldp-api', http: { path: '/status', headers: { [header]: template } } });
    const result = await execute(tool, { site: 'attacker-app.example.com' }, { apis: { default: { url: base, token: 'SECRET-API-TOKEN-789' } } });
    expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining(`may not set '${header}'`) });
    expect(hosts).toEqual([]);
  });

  // review Z4, F4b: undici refuses such a value before anything is written; the receipt said "was sent … check before retrying"
  it('says nothing was sent when a configured header value holds CR/LF, which the HTTP client refuses', async () => {
    const tool = makeToolDefinition({ executor: 'hldp-api', http: { path: '/status' } });
    const result = await execute(tool, {}, { apis: { default: { url: base, headers: { 'x-api-key': 'KEY-0123456789\r\nx-injected: 1' } } } });
    expect(result).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', error: expect.stringContaining('nothing was sent') });
    expect(result.error).not.toContain('check before retrying');
    expect(hosts).toEqual([]);
  });
});
