import express, { type Express } from 'express';
import { pino, type Logger } from 'pino';
import { bearerAuth, bearerMatches, errorHandler, notFoundHandler, requestLog, sendJsonInPieces } from '../http-edge/index.js';
import { sandboxHealth, type Sandbox } from '../sandbox/index.js';
import { parseExecRequest, runMethod } from './methods.js';
import { RUN_ID_HEADER, RunsInFlight } from './runs-in-flight.js';

/** Default largest request body: room for a file of a few MiB sent to `write_file`. */
export const DEFAULT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** What a gatekeeper app needs. */
export interface GatekeeperAppOptions {
  /** resolved root folder every method stays inside */
  root: string;
  /** the bearer token callers must send */
  token: string;
  bodyLimitBytes?: number;
  /** request log (never headers or bodies); silent by default */
  logger?: Logger;
  /** the sandbox exec runs in; without one, a PID namespace of its own only */
  sandbox?: Sandbox;
}

/** The gatekeeper as an express app: `POST /exec` and `POST /cancel` (bearer auth), and `GET /healthz`. */
export function createGatekeeperApp(options: GatekeeperAppOptions): Express {
  const logger = options.logger ?? pino({ level: 'silent' });
  const runs = new RunsInFlight();
  const auth = bearerAuth(options.token, 'the gatekeeper token');
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLog(logger));
  // a probe needs no token; the sandbox's details (the run_as user among them) are for those who hold it, as the gateway's
  app.get('/healthz', (request, response) => {
    const detailed = options.sandbox !== undefined && bearerMatches(request.get('authorization'), options.token);
    response.json({ status: 'ok', ...(detailed ? { sandbox: sandboxHealth(options.sandbox!.status) } : {}) });
  });
  app.post('/exec', auth, express.json({ limit: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES }), async (request, response) => {
    const parsed = parseExecRequest(request.body);
    if (!parsed.ok) {
      response.status(400).json({ code: parsed.code, error: parsed.message });
      return;
    }
    // a caller that hangs up stops the run: its process group is killed; one that named it may stop it by
    // POST /cancel instead, and still read what it printed
    const run = runs.start(request.get(RUN_ID_HEADER));
    response.on('close', () => run.abort());
    const { timeout_ms, max_output_bytes, sandbox: declared } = parsed.request;
    const result = await runMethod(parsed.request, {
      root: options.root, timeoutMs: timeout_ms, maxOutputBytes: max_output_bytes, signal: run.signal,
      ...(options.sandbox ? { sandbox: options.sandbox, hidden: options.sandbox.hidden, readOnly: options.sandbox.readOnly } : {}), ...(declared ? { declared } : {}),
    }).finally(() => run.end());
    // a long output (near its cap, every byte an escape) goes out in pieces: as one res.json it held this process's
    // main thread for seconds, and an embedded gatekeeper's is the gateway's
    sendJsonInPieces(response, 200, result);
  });
  app.post('/cancel', auth, express.json({ limit: 1024 }), (request, response) => {
    const id = (request.body as { run_id?: unknown } | undefined)?.run_id;
    if (typeof id !== 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: `send {"run_id": "…"} as application/json: the ${RUN_ID_HEADER} header of the POST /exec to stop` });
      return;
    }
    if (!runs.cancel(id)) {
      response.status(404).json({ code: 'UNKNOWN_RUN', error: `no run '${id.slice(0, 128)}' is in flight: it has ended, or its POST /exec did not name it with ${RUN_ID_HEADER}` });
      return;
    }
    // the run's own POST /exec answers with its CANCELLED result, what it printed included
    response.json({ cancelled: true, run_id: id });
  });
  app.use(notFoundHandler('the gatekeeper serves POST /exec, POST /cancel and GET /healthz'));
  app.use(errorHandler(logger, 'gatekeeper'));
  return app;
}
