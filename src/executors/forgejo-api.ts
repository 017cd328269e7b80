import type { ErrorCode } from '../core/index.js';
import type { ForgejoConfig } from './execution-context.js';
import { httpCall, joinUrl } from './http-call.js';
import { redactSecretQuery } from './secret-query.js';

/** Largest API answer read whole: a file of Forgejo's 10 MiB inline limit, base64 and JSON around it. */
const API_BODY_CAP = 32 * 1024 * 1024;

/** An answer of the Forgejo API, or why there is none. */
export type ApiAnswer =
  | { ok: true; status: number; text: string; json: unknown; headers: Record<string, string | string[] | undefined> }
  | { ok: false; code: ErrorCode; message: string; status?: number; text?: string };

/** The REST API of one repository, with every request inside one shared deadline. */
export class ForgejoRepositoryApi {
  readonly #config: ForgejoConfig;
  readonly #repository: string;
  readonly #deadlineAt: number;
  readonly #signal: AbortSignal | undefined;

  constructor(config: ForgejoConfig, repository: string, timeoutMs: number, signal?: AbortSignal) {
    this.#config = config;
    this.#repository = repository;
    this.#deadlineAt = performance.now() + timeoutMs;
    this.#signal = signal;
  }

  /** `/repos/{owner}/{repo}` followed by `suffix`. */
  repositoryPath(suffix = ''): string {
    const [owner, name] = this.#repository.split('/');
    // a dot segment would be resolved by the URL, away from /repos/{owner}/{repo}: the executor refuses it first
    if (owner === '.' || owner === '..' || name === '.' || name === '..') throw new Error(`'${this.#repository}' is no owner/name of a repository`);
    return `/repos/${encodeURIComponent(owner!)}/${encodeURIComponent(name!)}${suffix}`;
  }

  /** Sends one request under `/api/v1`; any status is an answer, only 2xx is `ok`. */
  async send(method: string, path: string, body?: unknown, maxBodyBytes = API_BODY_CAP): Promise<ApiAnswer> {
    const headers: Record<string, string> = { authorization: `token ${this.#config.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = joinUrl(this.#config.url, `/api/v1${path}`);
    // the query is ours (ref, sha, path, page, limit): an error keeps it readable, and only what looks secret, or is
    // the token, goes (every value went, `?ref=[REDACTED]`, so a receipt did not say which ref failed)
    const shownUrl = redactSecretQuery(url, [this.#config.token]);
    const outcome = await httpCall({
      url,
      shownUrl,
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: Math.max(1, Math.round(this.#deadlineAt - performance.now())),
      maxBodyBytes,
      signal: this.#signal,
    });
    if (!outcome.ok) return outcome;
    const text = outcome.body.text;
    if (outcome.status < 200 || outcome.status > 299) {
      return { ok: false, code: 'HTTP_ERROR', status: outcome.status, text, message: `${method} ${shownUrl} answered HTTP ${outcome.status}: ${text}` };
    }
    if (outcome.body.cutBytes > 0) {
      return { ok: false, code: 'INTERNAL_ERROR', message: `${method} ${shownUrl} answered more than ${maxBodyBytes} bytes` };
    }
    let json: unknown = null;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      // raw endpoints answer bytes, not JSON: the text is the answer
    }
    return { ok: true, status: outcome.status, text, json, headers: outcome.headers };
  }
}

/**
 * A repository path (or ref) with each segment percent-encoded and `/` kept; undefined when a segment is
 * `.` or `..`, which a server would normalise into another API endpoint reached with the same token.
 */
export function encodeRepositoryPath(path: string): string | undefined {
  const segments = path.replace(/^\/+/, '').split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) return undefined;
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}
