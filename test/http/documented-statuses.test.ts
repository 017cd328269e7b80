// Review userU, F4: POST /v1/call sent 415 UNSUPPORTED_MEDIA_TYPE and 429 TOO_MANY_CALLS, and no operation of the
// OpenAPI document listed either: a client generated from the document had no case for them. Each operation that
// takes a body is sent one that is not JSON, by a real `hldp serve`, and the status it answers must be documented.
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/openapi/index.js';
import { expectDocumented, request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const paths = (openApiDocument('test') as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }).paths;
// answers a body that is not JSON as JSON-RPC or a forge's webhook as its own signature check: not the REST bodies
const OWN_BODIES = new Set(['/mcp', '/v1/hooks/forgejo']);

describe('hldp serve', () => {
  describe('when a request body is not JSON', () => {
    it('answers a status the OpenAPI document lists for that operation, on every operation that takes a body', async () => {
      const server = await home.serve();
      const session = (await request(server, 'POST', '/v1/sessions')).headers.get('x-hldp-session')!;
      let asked = 0;
      for (const [route, operations] of Object.entries(paths)) {
        if (OWN_BODIES.has(route)) continue;
        for (const method of Object.keys(operations).filter((name) => name !== 'get' && name !== 'head')) {
          const path = route.replace('{id}', session).replace('{name}', 'shell-exec');
          const answer = await request(server, method.toUpperCase(), path, { raw: 'not json', headers: { 'content-type': 'text/plain' } });
          expect({ route, method, status: answer.status }).toEqual({ route, method, status: expect.any(Number) });
          expectDocumented(route, method, answer);
          asked += 1;
        }
      }
      expect(asked).toBeGreaterThan(5);
    });
  });

  describe('an operation that can refuse a caller for having too much at once', () => {
    it.each([['/v1/call', 'post'], ['/v1/confirm', 'post'], ['/v1/events', 'get'], ['/v1/approvals/{id}', 'get']])('documents 429 on %s', (route, method) => {
      expect(paths[route]?.[method]?.responses).toHaveProperty('429');
    });
  });
});
