import type { Request, RequestHandler, Response } from 'express';
import { withLimitRefusal } from '../core/index.js';
import { compileShapeChecker, type ShapeChecker } from '../scanner/index.js';
import { COMPONENT_SCHEMAS } from '../openapi/index.js';

const checkers = new Map<string, ShapeChecker>();

/** What each body looks like, for the message that answers a body that is not even an object. */
const EXAMPLES: Partial<Record<keyof typeof COMPONENT_SCHEMAS, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  MatchRequest: '{"intent": "查看最近的提交记录"}',
  CallRequest: '{"tool": "shell-exec", "params": {"cmd": "echo hello"}} to run a tool, or {"intent": "..."} to match one',
  ConfirmRequest: '{"token": "<the token a call answered with>"}',
});

/** Middleware checking `request.body` against a schema of the OpenAPI document: a 400 names each problem. */
export function validateBody(schemaName: keyof typeof COMPONENT_SCHEMAS): RequestHandler {
  return (request, response, next) => {
    const body = jsonObject(request, response, `send ${EXAMPLES[schemaName] ?? 'an object'}`);
    if (body === undefined) return;
    if (schemaName === 'CallRequest' && 'tool' in body && 'intent' in body) {
      response.status(400).json({ code: 'INVALID_REQUEST', error: "send either 'tool' (with 'params') to run a tool, or 'intent' (with 'context', 'limit') to match one, not both: an intent never runs anything" });
      return;
    }
    // neither form named: the schema's oneOf reads as if both fields were required (review userU, F5); say the two forms
    if (schemaName === 'CallRequest' && !('tool' in body) && !('intent' in body)) {
      // a misspelt field ('tol', 'intnet') is named too: it is likely the one meant
      const known = Object.keys(COMPONENT_SCHEMAS.CallRequest.properties);
      const unknown = Object.keys(body).filter((field) => !known.includes(field)).slice(0, LISTED_PROBLEMS).map((field) => `'${clip(field)}'`);
      const named = unknown.length ? ` (unknown field ${unknown.join(', ')})` : '';
      response.status(400).json({ code: 'INVALID_REQUEST', error: `the body names neither 'tool' nor 'intent'${named}; send ${EXAMPLES.CallRequest}` });
      return;
    }
    // one form with a field of the other: ajv's oneOf read "must NOT be valid; missing required field 'tool'", telling
    // an intent caller to add 'tool', which would run something (review userZ3, MEDIUM 1); name the stray field
    const stray = schemaName === 'CallRequest' ? strayField(body) : undefined;
    if (stray) {
      response.status(400).json({ code: 'INVALID_REQUEST', error: stray });
      return;
    }
    const found = checkerOf(schemaName)(body);
    // a limit of a match outside 1..MAX_LIMIT is refused naming the range, in the words hldp match and tool_find use (review U11-25)
    const problems = schemaName === 'MatchRequest' || schemaName === 'CallRequest' ? withLimitRefusal(found, (body as { limit?: unknown }).limit) : found;
    if (problems.length) {
      // the first few, as emptyBody names fields: a body of 20,000 unknown fields was answered with 3.9 MB (review R, R10)
      const named = problems.slice(0, LISTED_PROBLEMS).map(({ path, message }) => ({ path: clip(path.join('.')), message: clip(message) }));
      const more = problems.length > LISTED_PROBLEMS ? `; and ${problems.length - LISTED_PROBLEMS} more` : '';
      response.status(400).json({ code: 'INVALID_REQUEST', error: named.map((problem) => problem.message).join('; ') + more, problems: named });
      return;
    }
    next();
  };
}

/** The fields of each form of POST /v1/call's body beside the one that names it, as CallRequest's oneOf has them. */
const TOOL_ONLY = ['params', 'timeout_ms'];
const INTENT_ONLY = ['context', 'limit'];

// what is wrong with a call body of one form that has a field of the other, or undefined; the both and neither cases
// are answered before it
function strayField(body: object): string | undefined {
  const quoted = (fields: string[]): string => fields.map((field) => `'${field}'`).join(', ');
  if ('intent' in body) {
    const stray = TOOL_ONLY.filter((field) => field in body);
    if (!stray.length) return undefined;
    return `${quoted(stray)} ${stray.length > 1 ? 'go' : 'goes'} with 'tool'; a request with 'intent' takes only intent, context and limit, and never runs anything: drop ${quoted(stray)} to match, or send {"tool": ..., "params": {...}} without 'intent' to run a tool`;
  }
  if ('tool' in body) {
    const stray = INTENT_ONLY.filter((field) => field in body);
    if (!stray.length) return undefined;
    return `${quoted(stray)} ${stray.length > 1 ? 'go' : 'goes'} with 'intent'; a request with 'tool' takes only tool, params and timeout_ms: drop ${quoted(stray)} to run the tool, or send {"intent": ..., "context": {...}} without 'tool' to match one`;
  }
  return undefined;
}

// the body when it is a JSON object; otherwise the 415 (not JSON) or 400 (not an object, `fix` saying what to send)
// is answered, and undefined returned
function jsonObject(request: Request, response: Response, fix: string): object | undefined {
  if (!request.is('application/json')) {
    response.status(415).json({ code: 'UNSUPPORTED_MEDIA_TYPE', error: 'send the body as JSON with Content-Type: application/json' });
    return undefined;
  }
  const body: unknown = request.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body;
  const got = body === null ? 'null' : Array.isArray(body) ? 'a list' : `a ${typeof body}`;
  response.status(400).json({ code: 'INVALID_REQUEST', error: `the body must be a JSON object, got ${got}; ${fix}` });
  return undefined;
}

/** How many of a body's problems a 400 lists, and how long each of its texts may be, whatever the body sent. */
const LISTED_PROBLEMS = 5;
const PROBLEM_CHARS = 200;

// a field's name is the sender's, and a body may hold one of its whole size
function clip(text: string): string {
  return text.length > PROBLEM_CHARS ? `${text.slice(0, PROBLEM_CHARS)}… (${text.length} characters)` : text;
}

/**
 * Compiles the checkers of the bodies that ask for a match (`POST /v1/match`, and `/v1/call` with an intent), a step
 * each: a server runs them while intent matching is prepared, so that the first match after it says ready does not
 * compile one (~35 ms of CPU at load 11, ajv's code cold: issue #18).
 */
export function* matchBodyCheckerSteps(): Generator<void, void, void> {
  checkerOf('MatchRequest');
  yield;
  checkerOf('CallRequest');
}

/** Whether the checker of `schemaName`'s bodies is compiled: for tests. */
export function bodyCheckerCompiled(schemaName: keyof typeof COMPONENT_SCHEMAS): boolean {
  return checkers.has(schemaName);
}

// compiled at the first body it checks, not when the routes are made: the five take ~80 ms of CPU, which a server
// would otherwise pay before it listens (issue #18); the first request of each kind pays its own share instead, but
// for the match's, which a server compiles before it says matching is ready (matchBodyCheckerSteps)
function checkerOf(schemaName: keyof typeof COMPONENT_SCHEMAS): ShapeChecker {
  let checker = checkers.get(schemaName);
  if (!checker) {
    // the document's own schemas, so the server cannot drift from what it publishes
    checker = compileShapeChecker({ $ref: `#/components/schemas/${schemaName}`, components: { schemas: COMPONENT_SCHEMAS } }, 'the body', { ownSchema: true });
    checkers.set(schemaName, checker);
  }
  return checker;
}

/**
 * For a route that takes no fields (POST /v1/scan, /v1/sessions/:id/turn): no body, an empty one or `{}` pass; a body
 * that is not JSON, not an object, or names a field is refused as every other route refuses it (review R, R1).
 */
export function emptyBody(route: string): RequestHandler {
  return (request, response, next) => {
    if (request.headers['content-length'] === '0' || (request.headers['content-type'] === undefined && request.headers['transfer-encoding'] === undefined)) return next();
    const body = jsonObject(request, response, `${route} takes no fields: send no body or {}`);
    if (body === undefined) return;
    const fields = Object.keys(body);
    if (fields.length) {
      const named = fields.slice(0, 5).map((field) => `'${clip(field)}'`).join(', ');
      response.status(400).json({ code: 'INVALID_REQUEST', error: `unknown field ${named}${fields.length > 5 ? ` and ${fields.length - 5} more` : ''}; ${route} takes no fields: send no body or {}` });
      return;
    }
    next();
  };
}
