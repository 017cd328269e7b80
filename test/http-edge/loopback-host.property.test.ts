import type { Request, Response } from 'express';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loopbackHostGuard } from '../../src/http-edge/index.js';

// Review userZ4, F12: the loopback Host guard also admits the host of `listen.public_url` (a TLS proxy on the same host
// keeps the Host). Whatever a Host header holds, what it admits is a loopback name or that one public host as a browser
// reads it (any case, the scheme's default port written out or not): never a name a rebinding page could own.
const PUBLIC = 'https://hldp.example.com';

/** Whether the guard lets a request with this Host header through (the express handler, called as express calls it). */
function admits(guard: ReturnType<typeof loopbackHostGuard>, host: string): boolean {
  let passed = false;
  const response = { status: () => response, json: () => response } as unknown as Response;
  void guard({ headers: { host } } as Request, response, () => (passed = true));
  return passed;
}

/** The host and port a browser reads `https://<header>/` as; undefined if that is no URL. */
function browserHost(header: string): { hostname: string; port: string } | undefined {
  try {
    const url = new URL(`https://${header}/`);
    return { hostname: url.hostname, port: url.port };
  } catch {
    return undefined;
  }
}

const LOOPBACK = /^(localhost|\[::1\]|::1|127\.\d+\.\d+\.\d+)(:\d+)?$/i;
// the public name turned into a near miss: a prefix or suffix, another port, user info, a trailing dot, a path
const nearMiss = fc
  .tuple(fc.constantFrom('', 'a.', 'x', '.', 'evil@', 'evil.example/'), fc.constantFrom('hldp.example.com', 'HLDP.EXAMPLE.COM', 'hldp.example.co'), fc.constantFrom('', '.', 'x', '.evil.example', ':443', ':8443', ':0443', ':', '/x', '@evil.example', '#', ' ', '\\', '%2e', '\u3002'))
  .map(([before, name, after]) => `${before}${name}${after}`);

describe('loopbackHostGuard with a public URL', () => {
  const guard = loopbackHostGuard(PUBLIC);

  it('admits only loopback names and the public host itself, whatever the Host header holds', () => {
    fc.assert(
      fc.property(fc.oneof(nearMiss, fc.domain(), fc.string({ maxLength: 60 }), fc.webUrl().map((url) => url.replace(/^https?:\/\//, ''))), (host) => {
        if (!admits(guard, host)) return;
        if (LOOPBACK.test(host)) return;
        expect(browserHost(host), host).toEqual({ hostname: 'hldp.example.com', port: '' });
      }),
    );
  });

  it('admits the public host in any case, with or without its default port', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }), fc.boolean(), (upper, port) => {
        const name = [...'hldp.example.com'].map((character, index) => (upper[index] ? character.toUpperCase() : character)).join('');
        expect(admits(guard, `${name}${port ? ':443' : ''}`)).toBe(true);
      }),
    );
  });

  it('admits no other host without a public URL', () => {
    const plain = loopbackHostGuard();
    expect(admits(plain, 'hldp.example.com')).toBe(false);
    expect(admits(plain, '127.0.0.1:3900')).toBe(true);
  });
});
