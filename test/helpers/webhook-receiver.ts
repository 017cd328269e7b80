import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a webhook receiver took, whole. */
export interface ReceivedPost {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How a receiver answers a POST: with a status, or (undefined) with an answer it wrote on `response` itself. */
export type WebhookAnswer = (post: ReceivedPost, response: ServerResponse) => number | undefined;

export interface WebhookReceiver {
  url: string;
  port: number;
  /** every POST, in the order they arrived */
  deliveries: ReceivedPost[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 for the gateway's `notify` targets: records every POST and answers as `answer` says (204 by default). */
export async function startWebhookReceiver(answer: WebhookAnswer = () => 204): Promise<WebhookReceiver> {
  const deliveries: ReceivedPost[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => (body += chunk));
    incoming.on('end', () => {
      const post = { path: incoming.url ?? '', headers: incoming.headers, body };
      deliveries.push(post);
      const status = answer(post, outgoing);
      if (status !== undefined) outgoing.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, port, deliveries,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
