import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One `POST /v1/chat/completions` the server received. */
export interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: { model: string; messages: Array<{ role: string; content: string }>; [key: string]: unknown };
  /** the user message's text */
  prompt: string;
}

/** What the server answers a request with: the assistant's text, an HTTP error, or no answer at all. */
export type ChatReply = string | { status: number; body: string } | 'hang';

/** A running contract server. */
export interface ChatCompletionsServer {
  /** the API base, e.g. `http://127.0.0.1:41234/v1` */
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

/**
 * A local server implementing the OpenAI chat-completions contract (`POST /v1/chat/completions`:
 * `{model, messages: [{role, content}]}` in, `{choices: [{message: {role, content}}]}` out), as
 * llama.cpp, vLLM, Ollama and hosted APIs serve it. No model can run on this machine: `reply`
 * decides each answer, so tests can say what a model answers and check what it was sent.
 */
export async function startChatCompletionsServer(reply: (request: ChatRequest) => ChatReply): Promise<ChatCompletionsServer> {
  const requests: ChatRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      if (incoming.method !== 'POST' || incoming.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      let body: ChatRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the body is not JSON' } }));
        return;
      }
      const valid = typeof body.model === 'string' && Array.isArray(body.messages) && body.messages.every((message) => typeof message.role === 'string' && typeof message.content === 'string');
      if (!valid) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'expected {model, messages: [{role, content}]}' } }));
        return;
      }
      const request: ChatRequest = { headers: incoming.headers, body, prompt: body.messages.filter((message) => message.role === 'user').map((message) => message.content).join('\n') };
      requests.push(request);
      const answer = reply(request);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      if (typeof answer !== 'string') {
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
        return;
      }
      const completion = {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
