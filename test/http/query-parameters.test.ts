// Review R, R17: a query parameter a route does not take was refused on some routes (GET /v1/tools, /v1/receipts) and
// silently ignored on others — `GET /v1/events?after=abc` (as a caller guesses it from hldp://events{?after,…}) got the
// live stream instead of a resume, `?foo=1` passed on /v1/events, /v1/sessions/:id/tools, /v1/policies and /healthz,
// and `?types=a&types=b` was taken while /v1/tools refused a repeated parameter. Now every route is checked against
// the parameters the OpenAPI document lists for it.
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/openapi/index.js';
import { expectDocumented, request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { openSse } from '../helpers/sse-client.js';

const home = useServiceHome('warn');
const paths = (openApiDocument('test') as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> }).paths;

describe('hldp serve', () => {
  describe('when a request carries a query parameter its route does not take', () => {
    it('answers 400 INVALID_REQUEST naming the parameter and the ones the route takes, on every GET route', async () => {
      const server = await home.serve();
      const session = await request(server, 'POST', '/v1/sessions');
      const id = session.headers.get('x-hldp-session')!;
      const routes: [string, string, RegExp][] = [
        ['/v1/events', '/v1/events', /^unknown query parameter 'foo' on GET \/v1\/events; use after, last_event_id, types$/],
        ['/v1/sessions/{id}/tools', `/v1/sessions/${id}/tools`, /^unknown query parameter 'foo' on GET \/v1\/sessions\/\{id\}\/tools; use format$/],
        ['/v1/policies', '/v1/policies', /^unknown query parameter 'foo' on GET \/v1\/policies; it takes none$/],
        ['/v1/tools', '/v1/tools', /; use limit, offset, group, q, summary$/],
        ['/v1/receipts/verify', '/v1/receipts/verify', /on GET \/v1\/receipts\/verify; it takes none$/],
        ['/v1/approvals', '/v1/approvals', /; use status, caller, tool, limit, cursor, offset$/],
      ];
      for (const [route, path, error] of routes) {
        const answer = await request(server, 'GET', `${path}?foo=1`);
        expect({ path, status: answer.status, code: answer.json?.code }).toEqual({ path, status: 400, code: 'INVALID_REQUEST' });
        expect(answer.json.error).toMatch(error);
        expectDocumented(route, 'GET', answer);
      }
    });

    it('lets a probe add what it likes to /healthz and /v1/openapi.json (review userU, F7)', async () => {
      // a load balancer's health check with a cache-buster saw the gateway as down once the guard refused it
      const server = await home.serve();
      for (const path of ['/healthz?t=1733353200', '/healthz?foo=1&foo=2', '/v1/openapi.json?v=2']) {
        const answer = await request(server, 'GET', path);
        expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      }
      expect((await request(server, 'HEAD', '/healthz?t=1')).status).toBe(200);
    });

    it('answers 400 for a parameter given twice, on /v1/events as on /v1/tools', async () => {
      const server = await home.serve();
      for (const path of ['/v1/events?types=scan.completed&types=scan.failed', '/v1/tools?limit=1&limit=2']) {
        const answer = await request(server, 'GET', path);
        expect({ path, status: answer.status }).toEqual({ path, status: 400 });
        expect(answer.json.error).toMatch(/^query parameter '(types|limit)' must be given once$/);
      }
    });

    it('takes every query parameter the OpenAPI document lists for a route', async () => {
      const server = await home.serve();
      const values: Record<string, string> = { limit: '1', offset: '0', summary: 'true', ok: 'true', code: 'TOOL_NOT_FOUND', since: '2026-01-01T00:00:00Z', format: 'openai', status: 'pending', types: 'scan.completed' };
      const session = await request(server, 'POST', '/v1/sessions');
      const id = session.headers.get('x-hldp-session')!;
      for (const [route, operations] of Object.entries(paths)) {
        const parameters = (operations['get']?.parameters ?? []).filter((parameter) => parameter.in === 'query' && !['after', 'last_event_id', 'cursor', 'wait'].includes(parameter.name));
        if (parameters.length === 0 || route.includes('{name}') || route === '/v1/events' || route === '/mcp') continue;
        const query = parameters.map((parameter) => `${parameter.name}=${encodeURIComponent(values[parameter.name] ?? '1')}`).join('&');
        const answer = await request(server, 'GET', `${route.replace('{id}', id)}?${query}`);
        expect({ route, query, error: answer.json?.error }).toEqual({ route, query, error: route.startsWith('/v1/approvals/') ? expect.stringMatching(/^no approval request/) : undefined });
      }
    });
  });

  describe('when GET /v1/events is asked to resume with after', () => {
    it('refuses an after that is not an event id, saying what it must be', async () => {
      const server = await home.serve();
      const answer = await request(server, 'GET', '/v1/events?after=abc');
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({ code: 'INVALID_REQUEST', error: "'after' must be the id of an event (a non-negative integer) to resume after, got 'abc'" });
      const both = await request(server, 'GET', '/v1/events?after=1&last_event_id=1');
      expect(both.json.error).toBe("give 'after' or 'last_event_id', not both: each is the id of the event to resume after");
    });

    it('resumes after that id, as hldp://events?after= does', async () => {
      const server = await home.serve();
      await request(server, 'POST', '/v1/call', { body: { tool: 'no-such-tool', params: {} } });
      const live = await openSse(`${server.url}/v1/events?after=0&types=call.rejected`);
      try {
        expect(live.status).toBe(200);
        // the refusal's event was sent before the stream opened: only a resume gives it
        const message = await live.next((candidate) => candidate.event === 'call.rejected');
        expect(JSON.parse(message.data).data).toMatchObject({ code: 'TOOL_NOT_FOUND', tool: 'no-such-tool' });
      } finally {
        live.close();
      }
    });
  });
});
