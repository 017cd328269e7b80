import express, { type Request, type Response, type Router } from 'express';
import { hangUpSignal } from './hang-up.js';
import { whileAnswering } from '../../http-edge/index.js';
import { CALL_TOOL, CONFIRM_TOOL, FIND_TOOL } from '../../export/index.js';
import { listedSpecs, resolveListedName, type SessionState } from '../../sessions/index.js';
import { META_TOOL_BY_NAME, runMetaTool, type Gateway, type MetaOutcome } from '../service/index.js';
import { matchOptions, matchWait } from './match-options.js';
import { sendOutcome } from './send-outcome.js';
import { emptyBody, principalOf, validateBody } from '../../request-checks/index.js';
import { WIRE_ERRORS, type WireErrorCode } from '../../openapi/index.js';

// the meta-tools a request's timeout_ms means something to: the deadline of the call they run, or of a match's wait
const DEADLINED_META_TOOLS: ReadonlySet<string> = new Set([CALL_TOOL.name, CONFIRM_TOOL.name, FIND_TOOL.name]);

/** The header that names the session a call is made in. */
export const SESSION_HEADER = 'X-HLDP-Session';

// a refused meta-tool call's HTTP status: its code's in the wire error table
const metaStatus = (code: string | undefined): number => (code !== undefined && Object.hasOwn(WIRE_ERRORS, code) ? WIRE_ERRORS[code as WireErrorCode].status : 400);

/**
 * Sessions over HTTP: `POST /v1/sessions`, then `X-HLDP-Session` on `POST /v1/call` (registry tools and the
 * meta-tools by name), the session's tools, one tool's state and reason, the prompt block, the end of a turn.
 */
export function sessionRouter(gateway: Gateway, options: { maxBodyBytes: number }): Router {
  const router = express.Router();
  const jsonBody = express.json({ limit: options.maxBodyBytes, strict: false });
  const { sessions } = gateway;

  const withSession = (handler: (request: Request, response: Response, state: SessionState) => Promise<void> | void) => async (request: Request, response: Response) => {
    const state = await ownSession(gateway, String(request.params['id']), response);
    if (!state) return notFound(response, String(request.params['id']));
    await handler(request, response, state);
  };

  const checkSession = validateBody('SessionRequest');
  // a body is optional: no toolsets chosen
  const optionalBody: express.RequestHandler = (request, response, next) => (request.headers['content-length'] === '0' || request.headers['content-type'] === undefined ? next() : checkSession(request, response, next));
  // the catalogues a client menu shows: what can be enabled, and what can be read
  router.get('/v1/toolsets', (_request, response) => {
    const { index } = gateway.registry;
    response.json({ commit: index.commit, toolsets: index.toolsets.map((toolset) => ({ name: toolset.name, description: toolset.description, tools: toolset.tools, ...(toolset.hint ? { hint: toolset.hint } : {}), path: toolset.source.path })) });
  });

  router.get('/v1/skills', (_request, response) => {
    const { index } = gateway.registry;
    response.json({ commit: index.commit, skills: index.skills.map((skill) => ({ name: skill.name, description: skill.description, ...(skill.toolset ? { toolset: skill.toolset } : {}), path: skill.source.path })) });
  });

  router.post('/v1/sessions', jsonBody, optionalBody, async (request, response) => {
    const body = (request.body ?? {}) as { toolsets?: string[] };
    // the session acts for the principal that opened it, and only that principal may use it
    const opened = await sessions.open({ ...(body.toolsets ? { toolsets: body.toolsets } : {}), principal: principalOf(response).name });
    if (!opened.ok) {
      response.status(metaStatus(opened.code)).json({ code: opened.code, error: opened.message });
      return;
    }
    response.status(201).set(SESSION_HEADER, opened.session.id).json(describe(gateway, opened.session));
  });

  router.get('/v1/sessions/:id', withSession((_request, response, state) => {
    sessions.view(state);
    response.json(describe(gateway, state));
  }));

  router.delete('/v1/sessions/:id', async (request, response) => {
    if (!(await ownSession(gateway, request.params.id, response)) || !(await sessions.close(request.params.id))) return notFound(response, request.params.id);
    response.status(204).end();
  });

  router.get('/v1/sessions/:id/tools', withSession((request, response, state) => {
    const format = request.query['format'] ?? 'mcp';
    if (format !== 'mcp' && format !== 'openai' && format !== 'anthropic') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: "'format' must be mcp, openai or anthropic" });
      return;
    }
    const view = sessions.view(state);
    // the same listing as hldp export's for HLDP_TOKEN's principal
    const { tools, names } = listedSpecs(gateway.registry.index, view, format);
    const gone = sessions.goneHeld(state);
    response.json({ commit: view.commit, active_toolsets: state.toolsets.map((toolset) => toolset.name), ...(gone.length ? { gone_toolsets: gone } : {}), format, tools, names });
  }));

  router.get('/v1/sessions/:id/tools/:name', withSession((request, response, state) => {
    const explanation = sessions.explain(state, String(request.params['name']));
    response.status(explanation.found ? 200 : 404).json(explanation.found ? explanation : { ...explanation, code: 'TOOL_NOT_FOUND', error: explanation.reason });
  }));

  router.get('/v1/sessions/:id/prompt', withSession((request, response, state) => {
    const budget = promptQuery(request.query as Record<string, unknown>);
    if (typeof budget === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: budget });
      return;
    }
    response.json(sessions.prompt(state, budget));
  }));

  router.post('/v1/sessions/:id/turn', jsonBody, emptyBody('POST /v1/sessions/:id/turn'), withSession(async (_request, response, state) => {
    const changed = sessions.endTurn(state);
    await sessions.settle(state);
    if (changed) response.set('X-HLDP-Tools-Changed', 'true');
    response.json({ changed, ...describe(gateway, state) });
  }));

  return router;
}

/**
 * `POST /v1/call` with `X-HLDP-Session`: a registry tool runs in the session (visibility, substitution, toolset
 * TTL); a meta-tool answers by name; an intent only matches, as without a session.
 */
export async function callInSession(gateway: Gateway, request: Request, response: Response): Promise<void> {
  const id = request.get(SESSION_HEADER)!;
  const state = await ownSession(gateway, id, response);
  if (!state) return notFound(response, id);
  const body = request.body as { tool?: string; params?: Record<string, unknown>; intent?: string; limit?: number; timeout_ms?: number; context?: Record<string, unknown> };
  if (body.intent !== undefined) return matchIn(gateway, request, response, state);
  // a name as the session's tool list gave it (renamed to fit a client's alphabet) stands for its registry tool, as over MCP
  const { index } = gateway.registry;
  const target = resolveListedName(index, body.tool!);
  const resolveName = (listed: string): string => {
    const resolved = resolveListedName(index, listed);
    return resolved.kind === 'tool' ? resolved.name : listed;
  };
  // the session's changes reach the store before the answer: the client's next request may land at another instance
  const meta = target.kind === 'meta' ? META_TOOL_BY_NAME.get(target.tool.name) : undefined;
  if (meta) {
    // timeout_ms beside tool_call or confirm is the inner call's deadline, as MCP's _meta is (same ceiling and
    // allowance, timeout_from "call"); beside tool_find it bounds the wait for a loading search index. It was accepted
    // and dropped, and the TIMEOUT then told the agent to send the timeout_ms it had sent (review userZ5, F14)
    if (body.timeout_ms !== undefined && !DEADLINED_META_TOOLS.has(meta.name)) {
      response.status(400).json({ code: 'INVALID_REQUEST', error: `'timeout_ms' does not go with '${meta.name}', which runs no tool: drop it (it is the deadline of tool_call's and confirm's call)` });
      return;
    }
    // approval_wait's receipt is held until this response closes, counted with the receipts' routes (review Z8, Z8-8)
    const outcome = await whileAnswering(response, () => runMetaTool(gateway, state, meta, body.params ?? {}, { resolveName, signal: hangUpSignal(response), ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }) }));
    goneHeader(gateway, state, response);
    await gateway.sessions.settle(state);
    return sendMeta(response, meta.name, outcome);
  }
  const before = gateway.sessions.view(state).digest;
  goneHeader(gateway, state, response);
  const outcome = await gateway.call(target.kind === 'tool' ? target.name : body.tool!, body.params ?? {}, { session: state, caller: principalOf(response).name, signal: hangUpSignal(response), ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }) });
  if (gateway.sessions.view(state).digest !== before) response.set('X-HLDP-Tools-Changed', 'true');
  await gateway.sessions.settle(state);
  sendOutcome(response, outcome);
}

/**
 * `POST /v1/match` with `X-HLDP-Session`: the match is made in the session, as `tool_find` and `POST /v1/call {intent}`
 * there are — its recent calls inform the ranking and the match is recorded for `hldp suggest examples` (review userZ5,
 * F4: the header was accepted and ignored, so an agent built from `hldp export --json` taught the gateway nothing).
 */
export async function matchInSession(gateway: Gateway, request: Request, response: Response): Promise<void> {
  const id = request.get(SESSION_HEADER)!;
  const state = await ownSession(gateway, id, response);
  if (!state) return notFound(response, id);
  return matchIn(gateway, request, response, state);
}

async function matchIn(gateway: Gateway, request: Request, response: Response, state: SessionState): Promise<void> {
  const body = request.body as { intent: string; limit?: number; context?: Record<string, unknown> };
  const matched = await gateway.match(body.intent, { ...matchOptions(body.limit, body.context), ...matchWait(request), session: state });
  await gateway.sessions.settle(state);
  response.json(matched);
}

function sendMeta(response: Response, tool: string, outcome: MetaOutcome): void {
  switch (outcome.kind) {
    case 'answer': {
      const { answer } = outcome;
      if (answer.changed) response.set('X-HLDP-Tools-Changed', 'true');
      if (answer.ok) response.json({ ok: true, tool, message: answer.message, ...answer.data });
      else response.status(metaStatus(answer.code)).json({ ok: false, tool, ...answer.data, code: answer.code, error: answer.message });
      return;
    }
    case 'match':
      if (outcome.changed) response.set('X-HLDP-Tools-Changed', 'true');
      response.json(outcome.result);
      return;
    case 'call':
      if (outcome.changed) response.set('X-HLDP-Tools-Changed', 'true');
      sendOutcome(response, outcome.outcome);
      return;
    case 'invalid':
      response.status(metaStatus(outcome.code)).json({ ok: false, tool, code: outcome.code, error: outcome.error });
  }
}

/**
 * `X-HLDP-Toolsets-Gone: ops` on every call in a session that holds a toolset the registry no longer serves: an HTTP
 * agent hears of no rescan otherwise, and its list shrank to nothing with no word (review userX, X2).
 */
function goneHeader(gateway: Gateway, state: SessionState, response: Response): void {
  const gone = gateway.sessions.goneHeld(state);
  if (gone.length > 0) response.set(GONE_HEADER, gone.map((entry) => entry.name).join(', '));
}

/** The header that names the toolsets a session holds that a rescan took away. */
const GONE_HEADER = 'X-HLDP-Toolsets-Gone';

/** A session as the API shows it. */
function describe(gateway: Gateway, state: SessionState): Record<string, unknown> {
  const iso = (time: number | null): string | null => (time === null ? null : new Date(time).toISOString());
  // a toolset a rescan took away says so where the session's toolsets are read (review userX, X2)
  const gone = new Map(gateway.sessions.goneHeld(state).map((entry) => [entry.name, entry.message]));
  return {
    id: state.id,
    created_at: iso(state.created_at),
    toolsets: state.toolsets.map((toolset) => ({ name: toolset.name, scope: toolset.scope, expires_at: iso(toolset.deadline), ...(gone.has(toolset.name) ? { gone: gone.get(toolset.name) } : {}) })),
    loaded: state.loaded.map((tool) => ({ name: tool.name, expires_at: iso(tool.deadline) })),
    skills: gateway.sessions.skillIndex(state).map((skill) => skill.name),
  };
}

/** The session of that id if the request's principal opened it: another principal's session is not found, as if it did not exist. */
async function ownSession(gateway: Gateway, id: string, response: Response): Promise<SessionState | undefined> {
  // checked before the session is marked used: another principal's look-up must not refresh it (review J F8)
  return gateway.sessions.get(id, { principal: principalOf(response).name });
}

function notFound(response: Response, id: string): void {
  response.status(404).json({ code: 'SESSION_NOT_FOUND', error: `no session '${id}' (it ended, was forgotten after idling, or the server restarted): open one with POST /v1/sessions` });
}

/** `?window_tokens=N` or `?chars=N`, or a message saying what to send instead. */
function promptQuery(query: Record<string, unknown>): { windowTokens?: number; chars?: number } | string {
  const read = (key: string): number | undefined | string => {
    const value = query[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) return `'${key}' must be a whole number given once`;
    return Number(value);
  };
  const windowTokens = read('window_tokens');
  const chars = read('chars');
  if (typeof windowTokens === 'string') return windowTokens;
  if (typeof chars === 'string') return chars;
  return { ...(windowTokens === undefined ? {} : { windowTokens }), ...(chars === undefined ? {} : { chars }) };
}
