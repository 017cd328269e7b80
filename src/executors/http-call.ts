import type { ErrorCode } from '../core/index.js';
import { BoundedOutput, type RenderedOutput } from './bounded-output.js';
import { startDeadline } from './deadline.js';
import { describeError } from './execution-result.js';

/** One HTTP request under the constraints. */
export interface HttpCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** cap of the kept response body (head and tail) */
  maxBodyBytes: number;
  /** cap of a non-2xx response's kept body, when smaller (an error's text is held to the tool's cap) */
  maxErrorBodyBytes?: number;
  signal?: AbortSignal;
  /** where a 2xx response's body goes instead of being kept (a reader of its own bounds); its `body` is then empty */
  answerSink?: { push(chunk: Buffer): void };
  /** what a request that reached the server may have done, said when the connection broke after it was sent */
  mayHaveDone?: string;
  /** the URL as an error names it, when the caller knows which of its parts are secret; else `redactUrl`'s */
  shownUrl?: string;
}

/** A response (any status) with its body bounded, or why there is none. */
export type HttpOutcome =
  | { ok: true; status: number; headers: Record<string, string | string[] | undefined>; body: RenderedOutput }
  | { ok: false; code: Extract<ErrorCode, 'TIMEOUT' | 'CANCELLED' | 'CONNECTION_FAILED'>; message: string };

/** Sends one request through undici within the deadline; the body is read whatever its size, keeping head and tail. */
export async function httpCall(call: HttpCall): Promise<HttpOutcome> {
  const deadline = startDeadline(call.timeoutMs, call.signal);
  try {
    // loaded at the first network call, not with the executors: `hldp serve` and `hldp call` of a local tool do not pay its ~0.1 s load (issue #18)
    const { request } = await import('undici');
    const response = await request(call.url, {
      method: call.method as 'GET',
      headers: call.headers,
      body: call.body,
      signal: deadline.signal,
      // undici's own 300 s limits would cut a long tool short: the deadline alone decides
      headersTimeout: call.timeoutMs + 1_000,
      bodyTimeout: call.timeoutMs + 1_000,
    });
    const body = new BoundedOutput(call.maxBodyBytes);
    const failed = response.statusCode < 200 || response.statusCode > 299;
    const into = !failed && call.answerSink ? call.answerSink : body;
    for await (const chunk of response.body) into.push(chunk as Buffer);
    return { ok: true, status: response.statusCode, headers: response.headers, body: body.render('utf8', failed ? call.maxErrorBodyBytes : undefined) };
  } catch (error) {
    const stopped = deadline.reason();
    if (stopped === 'timeout') return { ok: false, code: 'TIMEOUT', message: `no complete response from ${call.method} ${call.shownUrl ?? redactUrl(call.url)} within ${call.timeoutMs} ms` };
    if (stopped === 'cancelled') return { ok: false, code: 'CANCELLED', message: 'cancelled by the caller' };
    const how = neverSent(error)
      ? 'nothing was sent (no connection was made), so nothing ran: safe to retry'
      : `the request was sent and the connection broke before the whole answer came: ${call.mayHaveDone ?? 'the server may have acted on it'}; check before retrying`;
    return { ok: false, code: 'CONNECTION_FAILED', message: `${call.method} ${call.shownUrl ?? redactUrl(call.url)}: ${describeError(error)}; ${how}` };
  } finally {
    deadline.clear();
  }
}

// failures of the connection itself (refused, no such host, no route, a connect timeout, a TLS handshake refused), and
// a request undici or node refused to write (a header value with CR/LF, review Z4, F4b): none of the request left this host. Anything else (a socket closed or reset once connected) may have come after
// the server read the request, so it is not said to be safe (review userW, W6: both read CONNECTION_FAILED alike).
const CONNECT_FAILURE = /^(UND_ERR_INVALID_ARG|ERR_INVALID_CHAR|ERR_INVALID_HTTP_TOKEN|ECONNREFUSED|ENOTFOUND|EAI_\w+|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_\w+|ERR_SSL_\w+|\w*CERT\w*|UNABLE_TO_\w+)$/;

function neverSent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECT_FAILURE.test(code)) return true;
  // a host with several addresses tried in turn fails with each one's error
  const each = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(each) && each.length > 0 && each.every(neverSent);
}

/**
 * The URL fit for an error message: no user:password part, and every query value (many APIs take a key as `?key=`,
 * `?appid=`) and the fragment replaced by `[REDACTED]`, so that a credential in a configured URL never reaches a
 * receipt. For a URL whose query the executor writes itself, `redactSecretQuery` keeps what is not secret.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    const query = parsed.search.slice(1);
    const fragment = parsed.hash === '' ? '' : '#[REDACTED]';
    parsed.search = '';
    parsed.hash = '';
    // each name is kept (it says which parameter), never its value; a bare item may be the key itself
    const items = query === '' ? [] : query.split('&').map((item) => (item.includes('=') ? `${item.slice(0, item.indexOf('='))}=[REDACTED]` : '[REDACTED]'));
    return parsed.toString() + (items.length > 0 ? `?${items.join('&')}` : '') + fragment;
  } catch {
    // not a URL: what could be a credential (userinfo, query, fragment) is left out
    return url.replace(/\/\/[^/?#]*@/, '//').replace(/[?#].*$/s, '?[REDACTED]');
  }
}

/**
 * `base` and `path` joined as URLs are (review Z4, F9: as text, `http://h/v1?appid=K` + `/items` put the path inside
 * the key's value): the base's path, then the tool's; the base's query kept, first, and the tool's query after it
 * without a parameter the base sets already (the configured one wins). A path can never change the host.
 */
export function joinUrl(base: string, path: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    // not a URL: joined as text, and the request names it as the failure it is
    return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
  }
  const split = path.indexOf('?');
  const ownPath = split === -1 ? path : path.slice(0, split);
  const ownQuery = split === -1 ? '' : path.slice(split + 1);
  url.pathname = url.pathname.replace(/\/+$/, '') + (ownPath.startsWith('/') ? ownPath : `/${ownPath}`);
  url.hash = '';
  const configured = new Set(new URLSearchParams(url.search).keys());
  const added = ownQuery.split('&').filter((item) => item !== '' && !configured.has(new URLSearchParams(item).keys().next().value ?? ''));
  const baseQuery = url.search.slice(1);
  const query = [...(baseQuery === '' ? [] : [baseQuery]), ...added].join('&');
  url.search = query === '' ? '' : `?${query}`;
  return url.toString();
}

/**
 * A URL made by `joinUrl(base, …)` as an error names it when the base's path is a secret (a chat webhook's
 * `/services/T…/B…/<secret>`, review Z4, F7): `scheme://host[:port]/[configured path]` and then the tool's own path,
 * the query's values hidden as `redactUrl` hides them. A base without a path shows as it is.
 */
export function shownJoinedUrl(base: string, joined: string): string {
  const shown = redactUrl(joined);
  try {
    const basePath = new URL(base).pathname.replace(/\/+$/, '');
    if (basePath === '') return shown;
    const parsed = new URL(joined);
    const own = parsed.pathname.startsWith(`${basePath}/`) ? parsed.pathname.slice(basePath.length) : '/…';
    return `${parsed.origin}/[configured path]${own}${shown.slice(parsed.origin.length + parsed.pathname.length)}`;
  } catch {
    return '[the configured URL]';
  }
}
