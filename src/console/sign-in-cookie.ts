import type { Request } from 'express';
import { isLoopback } from '../core/index.js';
import { forwardingHeader } from '../http-edge/index.js';
import { consoleCookie, cookieValue, type ConsoleCookie } from './security.js';

/** A sign-in cookie and whether it is set `Secure`. */
export interface ChosenCookie {
  cookie: ConsoleCookie;
  secure: boolean;
}

/**
 * Which sign-in cookie a request is given and read by. `secure`: the `Secure`, `__Host-` cookie, as configured.
 * `plainOnLoopback` (`console.secure_cookies: auto` on a loopback gateway whose `listen.public_url` is https): the
 * Secure cookie only through the public URL; the operator's own browser at `http://127.0.0.1:PORT` — a request
 * addressed to loopback, forwarded by no proxy, posted from a loopback page (its Origin) — gets the plain-http one, as a loopback
 * gateway without a public URL gives it: a browser that does not keep a Secure cookie from plain-http loopback
 * (Safari) looped back to sign-in there (review Z7, Z7-5). A proxy that rewrites the Host to 127.0.0.1 still signs its
 * https page in with the Secure cookie (its Origin says so), and that cookie is read first on every request; the plain
 * one only on a loopback request no proxy forwarded that carries no Secure one, so a planted plain cookie never wins.
 */
export class SignInCookies {
  readonly #secure: boolean;
  readonly #plainOnLoopback: boolean;

  constructor(secure: boolean, plainOnLoopback: boolean) {
    this.#secure = secure;
    this.#plainOnLoopback = secure && plainOnLoopback;
  }

  /** The cookie a sign-in posted by `request` is given. */
  issued(request: Request): ChosenCookie {
    const plain = !this.#secure || (this.#plainOnLoopback && direct(request) && fromLoopbackPage(request));
    return { cookie: consoleCookie(!plain), secure: !plain };
  }

  /** The sign-in value `request` carries, in the cookie it may be read from. */
  value(request: Request): string | undefined {
    // the Secure one first: a plain cookie can be planted over plain http (a sibling subdomain, a network attacker) and
    // must never win over the browser's own sign-in (review Z9, Z9-1)
    const secure = cookieValue(request, consoleCookie(this.#secure).name);
    if (secure !== undefined || !(this.#plainOnLoopback && direct(request))) return secure;
    return cookieValue(request, consoleCookie(false).name);
  }

  /** The cookies a sign-out clears: the one `request` may be read by, and the Secure one. */
  cleared(request: Request): ChosenCookie[] {
    const secure = { cookie: consoleCookie(this.#secure), secure: this.#secure };
    return this.#plainOnLoopback && direct(request) ? [{ cookie: consoleCookie(false), secure: false }, secure] : [secure];
  }
}

// addressed to this machine's loopback (its Host), over a loopback connection, and with no trace of a proxy: no
// forwarding header, no Via, not HTTP/1.0 (what nginx's bare proxy_pass speaks to its upstream). A proxy that rewrites
// the Host, speaks HTTP/1.1 and adds none of these cannot be told from the operator's own browser: README ("Behind a
// TLS proxy") says such a proxy must send X-Forwarded-For (review Z10, Z10-5)
function direct(request: Request): boolean {
  if (forwardingHeader(request) !== undefined || request.headers.via !== undefined) return false;
  if (request.httpVersionMajor === 1 && request.httpVersionMinor === 0) return false;
  if (!isLoopback((request.socket.remoteAddress ?? '').replace(/^::ffff:/i, ''))) return false;
  const host = request.get('host');
  if (host === undefined) return false;
  try {
    return isLoopback(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

// posted by the plain-http page at the very loopback address the request is addressed to: a browser sends the Origin
// of a POST. None is no proof (a proxy that rewrites the Host to 127.0.0.1 and adds no forwarding header makes a
// script's sign-in through the public URL look direct): it gets the Secure cookie (review Z9, Z9-1). A script behind
// such a proxy can forge this Origin too: what tells it apart is in direct() (review Z10, Z10-5)
function fromLoopbackPage(request: Request): boolean {
  const origin = request.get('origin');
  const host = request.get('host');
  if (origin === undefined || host === undefined) return false;
  try {
    const parsed = new URL(origin);
    return parsed.protocol === 'http:' && isLoopback(parsed.hostname) && parsed.host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}
