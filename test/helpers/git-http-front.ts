import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the front: status, media type and body. */
export interface FrontAnswer {
  status: number;
  contentType: string;
  body: Buffer;
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

/**
 * A local HTTP server in front of a real git server (`git http-backend`): every request is passed on unless
 * `intercept` answers it, and every answer goes back through `rewrite`. It serves as a proxy that changes a media
 * type, or as a server that lies or fails on one request while the rest stays real.
 */
export async function startGitHttpFront(repositoryUrl: string, hooks: FrontHooks = {}): Promise<GitHttpFront> {
  const real = new URL(repositoryUrl);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const seen = { method: request.method ?? 'GET', url: request.url ?? '/' };
        let answer = hooks.intercept?.(seen);
        if (answer === undefined) {
          const passed = await fetch(`${real.origin}${seen.url}`, { method: seen.method, headers: { 'content-type': String(request.headers['content-type'] ?? '') }, ...(seen.method === 'POST' ? { body: Buffer.concat(chunks) } : {}) });
          answer = { status: passed.status, contentType: passed.headers.get('content-type') ?? '', body: Buffer.from(await passed.arrayBuffer()) };
          if (hooks.rewrite) answer = hooks.rewrite(answer, seen);
        }
        response.writeHead(answer.status, answer.contentType ? { 'content-type': answer.contentType } : {});
        response.end(answer.body);
      })().catch((error: unknown) => {
        response.writeHead(502);
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${real.pathname}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
