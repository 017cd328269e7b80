import type { RequestHandler } from 'express';
import { compileShapeChecker, type ShapeChecker } from '../../scanner/index.js';
import { COMPONENT_SCHEMAS } from './openapi-schemas.js';

const checkers = new Map<string, ShapeChecker>();

/** Middleware checking `request.body` against a schema of the OpenAPI document: a 400 names each problem. */
export function validateBody(schemaName: keyof typeof COMPONENT_SCHEMAS): RequestHandler {
  let checker = checkers.get(schemaName);
  if (!checker) {
    // the document's own schemas, so the server cannot drift from what it publishes
    checker = compileShapeChecker({ $ref: `#/components/schemas/${schemaName}`, components: { schemas: COMPONENT_SCHEMAS } }, 'the body');
    checkers.set(schemaName, checker);
  }
  const check = checker;
  return (request, response, next) => {
    if (!request.is('application/json')) {
      response.status(415).json({ code: 'UNSUPPORTED_MEDIA_TYPE', error: 'send the body as JSON with Content-Type: application/json' });
      return;
    }
    const problems = check(request.body);
    if (problems.length) {
      response.status(400).json({ code: 'INVALID_REQUEST', error: problems.map((problem) => problem.message).join('; '), problems: problems.map(({ path, message }) => ({ path: path.join('.'), message })) });
      return;
    }
    next();
  };
}
