import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the front: status, media type, body, and the content coding it claims (none by default). */
export interface FrontAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  contentEncoding?: string;
}

/** What the front does to the traffic it passes on. */
export interface FrontHooks {
  /** answers a request itself instead of passing it on (undefined: pass it on) */
  intercept?(request: { method: string; url: string }): FrontAnswer | undefined;
  /** changes the real server's answer on its way back */
  rewrite?(answer: FrontAnswer, request: { method: string; url: string }): FrontAnswer;
}

/** A local HTTP server in front of the git server. */
export interface GitHttpFront {
  /** the repository's URL through the front */
  url: string;
  close(): Promise<void>;
}

/** The request headers passed on: those of git's requests that a git server reads (a token's among them). */
const PASSED_HEADERS = ['content-type', 'authorization', 'accept'];

/**
 * Answers `request` as a front does, once its body is read: by `hooks.intercept`, or by passing it on to `target`
 * (the real server's origin and the path to ask there: method, body and `PASSED_HEADERS`) and sending the answer back
 * through `hooks.rewrite`. A failure to pass it on answers 502. For a handler of `testFolder().listen` that serves a
 * request or two itself (a redirect) and passes the rest on.
 */
export function passOn(target: string, request: IncomingMessage, response: ServerResponse, hooks: FrontHooks = {}): void {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const seen = { method: request.method ?? 'GET', url: request.url ?? '/' };
    let answer = hooks.intercept?.(seen);
    if (answer === undefined) {
      const headers: Record<string, string> = {};
      for (const name of PASSED_HEADERS) if (request.headers[name]) headers[name] = String(request.headers[name]);
      const passed = await fetch(target, { method: seen.method, headers, ...(seen.method === 'POST' ? { body: Buffer.concat(chunks) } : {}) });
      answer = { status: passed.status, contentType: passed.headers.get('content-type') ?? '', body: Buffer.from(await passed.arrayBuffer()) };
      if (hooks.rewrite) answer = hooks.rewrite(answer, seen);
    }
    response.writeHead(answer.status, { ...(answer.contentType ? { 'content-type': answer.contentType } : {}), ...(answer.contentEncoding ? { 'content-encoding': answer.contentEncoding } : {}) });
    response.end(answer.body);
  })().catch((error: unknown) => {
    response.writeHead(502);
    response.end(String(error));
  });
}

/**
 * A local HTTP server in front of a real git server (`git http-backend`): every request is passed on unless
 * `intercept` answers it, and every answer goes back through `rewrite`. It serves as a proxy that changes a media
 * type, or as a server that lies or fails on one request while the rest stays real.
 */
export async function startGitHttpFront(repositoryUrl: string, hooks: FrontHooks = {}): Promise<GitHttpFront> {
  const real = new URL(repositoryUrl);
  const server = createServer((request, response) => passOn(`${real.origin}${request.url ?? '/'}`, request, response, hooks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${real.pathname}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
