import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../src/http-edge/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';

// Behaviours a mutation pass could break without any test noticing: each test here fails on one such break.

let temp: { path: string; cleanup: () => Promise<void> };
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  temp = await makeTempDir();
  await writeFiles(join(temp.path, 'repo'), {
    'tools/nested/TOOL.hdlp': makeToolYaml('nested', {
      executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }',
      params_schema: '{ type: object, properties: { a: { type: object, properties: { b: { type: object, properties: { c: { type: integer } } } } } } }',
    }),
  });
  // no webhook secret: webhooks are off
  server = await startTestServer(join(temp.path, 'repo'));
});
afterAll(async () => {
  await server.cleanup();
  await temp.cleanup();
});

function withHost(host: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(new URL(path, server.url), { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject).end();
  });
}

describe('the loopback Host guard', () => {
  it.each(['localhost.evil.example', '127.0.0.1.evil.example', 'evil.example.localhost.', '127.0.0.1.nip.io', 'localhostx'])('refuses Host %s (an unanchored check would let it in)', async (name) => {
    expect(await withHost(`${name}:${new URL(server.url).port}`, '/v1/tools')).toBe(403);
  });
});

describe('webhooks without a secret', () => {
  it('answer 404 WEBHOOKS_OFF, never accept an empty-key signature, and rescan nothing', async () => {
    const { createHmac } = await import('node:crypto');
    const body = '{"ref":"refs/heads/main"}';
    const emptyKey = createHmac('sha256', '').update(body).digest('hex');
    const response = await request(server, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-forgejo-signature': emptyKey, 'x-forgejo-event': 'push' } });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ code: 'WEBHOOKS_OFF' });
    expectDocumented('/v1/hooks/forgejo', 'POST', response);
  });
});

describe('params errors', () => {
  it('name the nested path of the problem (a.b.c)', async () => {
    const response = await request(server, 'POST', '/v1/call', { body: { tool: 'nested', params: { a: { b: { c: 'three' } } } } });
    expect(response.status).toBe(422);
    expect(response.json.problems).toEqual([{ param: 'a.b.c', message: 'must be integer' }]);
    expect(response.json.error).toContain("'a.b.c' must be integer");
  });
});

describe('the error handler at the edge', () => {
  it('answers an unexpected failure 500 INTERNAL_ERROR without a stack or the message, and logs it', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const app = express();
    app.get('/boom', () => {
      throw new Error('secret detail at /home/user/x.ts:12');
    });
    app.use(errorHandler(logger, 'gateway'));
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const { port } = listening.address() as { port: number };
      const response = await request({ url: `http://127.0.0.1:${port}` }, 'GET', '/boom');
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ code: 'INTERNAL_ERROR', error: 'internal error in the gateway; see its log' });
      expect(response.text).not.toContain('secret detail');
      expect(lines.join('')).toContain('gateway request failed');
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });
});
