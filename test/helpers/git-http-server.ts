import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real smart-HTTP git server: `git http-backend` (CGI) behind a small HTTP server on 127.0.0.1. */
export interface GitHttpServer {
  /** e.g. `http://127.0.0.1:41234`; a repository `x.git` under the root is at `${url}/x.git` */
  url: string;
  /** requests served so far */
  requests(): number;
  /** body bytes sent so far in answers to `POST …/git-upload-pack` (the packs fetched) */
  uploadPackBytes(): number;
  close(): Promise<void>;
}

/**
 * Serves every repository under `projectRoot`; with `token`, requires HTTP Basic auth with that password (as Forgejo does).
 * `beforeServing` runs before each request is answered (the request waits for it): a test moves the repository there.
 */
export async function startGitHttpServer(options: { projectRoot: string; token?: string; beforeServing?: (method: string, path: string, request: IncomingMessage) => Promise<void> }): Promise<GitHttpServer> {
  let requests = 0;
  const sent = { uploadPack: 0 };
  const server = createServer((request, response) => {
    requests++;
    if (options.token && !authorised(request, options.token)) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('unauthorised\n');
      return;
    }
    const serve = () => serveCgi(options.projectRoot, request, response, sent);
    if (!options.beforeServing) return serve();
    // the body is piped to the CGI only once it runs: hold it until then
    request.pause();
    void options.beforeServing(request.method ?? 'GET', new URL(request.url ?? '/', 'http://localhost').pathname, request).then(serve, (error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    uploadPackBytes: () => sent.uploadPack,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function authorised(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) === token;
}

function serveCgi(projectRoot: string, request: IncomingMessage, response: ServerResponse, sent: { uploadPack: number }): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const counted = request.method === 'POST' && url.pathname.endsWith('/git-upload-pack');
  const backend = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      REMOTE_USER: 'tester',
      REMOTE_ADDR: '127.0.0.1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      CONTENT_LENGTH: request.headers['content-length'] ?? '',
      HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  });
  request.pipe(backend.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      if (counted) sent.uploadPack += chunk.length;
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = findHeaderEnd(head);
    if (!end) return;
    writeCgiHeaders(response, head.subarray(0, end.index).toString('latin1'));
    headersSent = true;
    if (counted) sent.uploadPack += head.length - end.index - end.length;
    response.write(head.subarray(end.index + end.length));
  });
  backend.stdout.on('end', () => response.end());
  backend.on('error', (error) => {
    if (!response.headersSent) response.writeHead(500);
    response.end(String(error));
  });
}

function findHeaderEnd(buffer: Buffer): { index: number; length: number } | undefined {
  const crlf = buffer.indexOf('\r\n\r\n');
  if (crlf >= 0) return { index: crlf, length: 4 };
  const lf = buffer.indexOf('\n\n');
  return lf >= 0 ? { index: lf, length: 2 } : undefined;
}

function writeCgiHeaders(response: ServerResponse, text: string): void {
  let status = 200;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
    else response.setHeader(name, value);
  }
  response.statusCode = status;
}
