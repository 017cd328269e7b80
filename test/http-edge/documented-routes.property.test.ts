import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedMethods, documentedRoutes, routeOf } from '../../src/http-edge/index.js';
import { openApiDocument } from '../../src/openapi/index.js';

// The 405 and the query guard read a request's path (anyone's text) against the OpenAPI document's paths: whatever the
// path, the route found is one it matches, with the most literal segments; and a documented path with any values in its
// {placeholders} is found as that route, its Allow header the methods the document lists.
const routes = documentedRoutes(openApiDocument('test'));
const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{1,24}$/);

describe('documentedRoutes and routeOf', () => {
  it('find, for any path, only a route it matches, and none more literal that matches too', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.array(segment, { maxLength: 6 }).map((parts) => `/v1/${parts.join('/')}`)), (path) => {
      const found = routeOf(routes, path);
      const matching = routes.filter((route) => route.pattern.test(path));
      expect(found === undefined ? matching.length : matching.every((route) => route.literals <= found.literals) && found.pattern.test(path)).toBe(found === undefined ? 0 : true);
    }));
  });

  it('find a documented path, whatever its placeholders hold, as its own route (or a more literal one it names)', () => {
    fc.assert(fc.property(fc.constantFrom(...routes), fc.array(segment, { minLength: 3, maxLength: 3 }), (route, values) => {
      let index = 0;
      const path = route.route.replace(/\{\w+\}/g, () => values[index++]!);
      const found = routeOf(routes, path)!;
      expect(found.literals).toBeGreaterThanOrEqual(route.literals);
      if (found === route) expect(allowedMethods(found).split(', ')).toEqual(expect.arrayContaining([...route.methods.keys()]));
    }));
  });
});
