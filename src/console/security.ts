import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { isLoopback } from '../core/index.js';

/** No inline script or style, nothing from another origin, no framing: tool output that slips into markup still runs nothing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers every response of the gateway carries: a strict CSP, no sniffing, no framing, no referrer. */
export function securityHeaders(): RequestHandler {
  return (_request, response, next) => {
    response.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
    response.setHeader('x-content-type-options', 'nosniff');
    response.setHeader('x-frame-options', 'DENY');
    // same-origin, not no-referrer: with no-referrer a browser sends Origin: null on the console's own form posts
    response.setHeader('referrer-policy', 'same-origin');
    response.setHeader('cross-origin-opener-policy', 'same-origin');
    response.setHeader('cross-origin-resource-policy', 'same-origin');
    next();
  };
}

/** The console's cookie, as it was named before it had a prefix and a path of its own. */
export const SESSION_COOKIE = 'hldp_console';

/** Where the console's sign-in cookie lives: its name and path. */
export interface ConsoleCookie {
  name: string;
  path: string;
}

/**
 * The sign-in cookie's name and path. A browser sends a host's cookies to every port of it (cookies have no port),
 * so the cookie is kept as narrow as it can be: over https, `__Host-` (Secure, no Domain, Path=/: no plain-http
 * server on the host and no other host can set or shadow it, and plain-http servers never receive it); over plain
 * http, Path=/console, so that another server on the host receives it only for its own /console paths (review J).
 */
export function consoleCookie(secure: boolean): ConsoleCookie {
  return secure ? { name: `__Host-${SESSION_COOKIE}`, path: '/' } : { name: SESSION_COOKIE, path: '/console' };
}

/** The cookie as it was set before `consoleCookie`: Path=/ under the plain name; cleared wherever one may linger. */
export const LEGACY_COOKIE: ConsoleCookie = { name: SESSION_COOKIE, path: '/' };

/** A signed-in person: who, and the CSRF token of this sign-in. */
export interface ConsoleSession {
  principal: string;
  csrf: string;
  expires: number;
  nonce: string;
}

const base64url = (buffer: Buffer): string => buffer.toString('base64url');

/**
 * Sign-ins as signed cookies: `payload.signature`, HMAC-SHA256 under a key only the gateway holds (derived from its
 * credentials, so instances that share them accept each other's cookies). The signature also covers the principal's
 * binding (the SHA-256 of its current token, never in the cookie itself), so rotating a principal's token ends its
 * sign-ins at every instance. The token a person signs in with is never in the cookie, never in page storage.
 * The CSRF token is an HMAC of the sign-in's random nonce.
 */
export class ConsoleSessions {
  readonly #key: Buffer;
  readonly #ttlMs: number;

  constructor(key: Buffer, ttlMs = 12 * 60 * 60_000) {
    this.#key = key;
    this.#ttlMs = ttlMs;
  }

  /** A new sign-in for `principal`: the cookie's value and the session it stands for. */
  issue(principal: string, binding: string, now = Date.now()): { value: string; session: ConsoleSession } {
    const nonce = base64url(randomBytes(18));
    const expires = now + this.#ttlMs;
    const payload = base64url(Buffer.from(JSON.stringify({ p: principal, e: expires, n: nonce })));
    return { value: `${payload}.${this.#sign(payload, binding)}`, session: { principal, expires, nonce, csrf: this.#csrf(nonce) } };
  }

  /**
   * The session a cookie value stands for, if its signature holds for the principal's current binding (`bindingOf`
   * answers undefined for a principal that no longer exists) and it has not expired. Whether it was signed out is
   * the store's to say (`ConsoleBackend.signedOut`, shared by every instance).
   */
  read(value: string | undefined, bindingOf: (principal: string) => string | undefined, now = Date.now()): ConsoleSession | undefined {
    if (!value) return undefined;
    const [payload, signature, extra] = value.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    // the payload is parsed before its signature is checked only to learn whose binding to check it with
    let parsed: { p?: unknown; e?: unknown; n?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof parsed;
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    if (typeof parsed.p !== 'string' || typeof parsed.e !== 'number' || typeof parsed.n !== 'string') return undefined;
    const binding = bindingOf(parsed.p);
    if (binding === undefined) return undefined;
    const expected = Buffer.from(this.#sign(payload, binding));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (parsed.e <= now) return undefined;
    return { principal: parsed.p, expires: parsed.e, nonce: parsed.n, csrf: this.#csrf(parsed.n) };
  }

  /** Whether `given` is this session's CSRF token (constant time). */
  csrfMatches(session: ConsoleSession, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(session.csrf);
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /**
   * The tag that lets the console show `notice` on a page it redirects this session to (review P, P8: `?notice=` was
   * free text any link could put on the approvers' page as the console's own status line): bound to the session, so a
   * link made for one person, or by anyone without the key, shows nothing.
   */
  noticeTag(session: ConsoleSession, notice: string): string {
    return base64url(createHmac('sha256', this.#key).update(`notice:${session.nonce}\0${notice}`).digest());
  }

  /** Whether `tag` is this session's tag of `notice` (constant time). */
  noticeMatches(session: ConsoleSession, notice: string, tag: unknown): boolean {
    if (typeof tag !== 'string') return false;
    const expected = Buffer.from(this.noticeTag(session, notice));
    const actual = Buffer.from(tag);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  #sign(payload: string, binding: string): string {
    return base64url(createHmac('sha256', this.#key).update(`session:${payload}\0${binding}`).digest());
  }

  #csrf(nonce: string): string {
    return base64url(createHmac('sha256', this.#key).update(`csrf:${nonce}`).digest());
  }
}

/** The value of one cookie in a request's `Cookie` header. */
export function cookieValue(request: Request, name: string): string | undefined {
  const header = request.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decodeCookie(part.slice(at + 1).trim());
  }
  return undefined;
}

// a value that is not valid percent-encoding is no cookie of ours: its visitor is signed out, not a server error
function decodeCookie(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/**
 * Whether a state-changing request comes from the console's own pages: an `Origin` (or, without one, a
 * `Sec-Fetch-Site`) that names this very host, or is the public origin its operator configured (`listen.public_url`:
 * a TLS proxy in front passes the browser's Origin on, whatever Host it sends; review userZ4, F12). An Origin on the
 * public URL's host but another scheme or port is not it. A request that sends neither (not a browser) still needs
 * the CSRF token.
 */
export function fromSameOrigin(request: Request, publicUrl?: string): { ok: true } | { ok: false; reason: string } {
  const origin = request.get('origin');
  const host = request.get('host');
  if (origin !== undefined) {
    if (origin === 'null' || !host) return { ok: false, reason: `Origin '${origin}' is not this console's` };
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return { ok: false, reason: `Origin '${origin.slice(0, 80)}' is not a URL` };
    }
    const known = publicUrl === undefined ? undefined : new URL(publicUrl);
    if (known !== undefined && parsed.origin === known.origin) return { ok: true };
    // behind a TLS proxy the browser's Origin is the proxy's address: the operator names it, never the request
    const hint = known || parsed.protocol !== 'https:' ? '' : ' — a TLS proxy in front: set listen.public_url to the address it serves';
    if (parsed.host !== host || parsed.host === known?.host) return { ok: false, reason: `Origin '${parsed.origin}' is not this console's (${known ? known.origin : host})${hint}` };
    return { ok: true };
  }
  const site = request.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { ok: false, reason: `a ${site} request` };
  return { ok: true };
}

/**
 * Whether the browser that posted a request keeps a `Secure` cookie set in answer: yes when its page came over https,
 * or over plain http from a host browsers treat as secure anyway (loopback, `*.localhost`); no for any other plain-http
 * origin, where the browser drops the cookie and every page sends it back to sign-in. Judged by the request's `Origin`,
 * the address the browser itself shows (a TLS proxy in front of the gateway changes the scheme the gateway sees, never
 * the Origin); a request without one (not a browser) is taken at its word.
 */
export function keepsSecureCookie(request: Request): { ok: true } | { ok: false; origin: string } {
  const origin = request.get('origin');
  if (origin === undefined) return { ok: true };
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return { ok: true };
  }
  const host = parsed.hostname.toLowerCase();
  if (parsed.protocol !== 'http:' || isLoopback(host) || host.endsWith('.localhost')) return { ok: true };
  return { ok: false, origin: parsed.origin };
}
