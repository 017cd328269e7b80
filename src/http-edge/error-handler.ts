import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';

interface HttpError {
  type?: string;
  status?: number;
  limit?: number;
  /** the raw body, on a parse failure */
  body?: unknown;
  message?: string;
}

/** The one error handler at the edge: a JSON 4xx that says what to fix, a bare 500 otherwise; never a stack trace. */
export function errorHandler(logger: Logger, service: string): ErrorRequestHandler {
  return (error: HttpError, request, response, _next) => {
    if (response.headersSent) {
      response.end();
      return;
    }
    if (error.type === 'entity.too.large') {
      response.status(413).json({ code: 'PAYLOAD_TOO_LARGE', error: `the request body is over the limit of ${error.limit} bytes; send less` });
      return;
    }
    if (error.type === 'entity.parse.failed') {
      // JSON.parse names a position, except when the body ends too early: then say where it ended
      const where = error.message === 'Unexpected end of JSON input' && typeof error.body === 'string' ? ` at position ${error.body.length} (the end of the body: is a closing bracket or quote missing?)` : '';
      response.status(400).json({ code: 'MALFORMED_JSON', error: `the body is not valid JSON: ${error.message}${where}` });
      return;
    }
    if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
      response.status(415).json({ code: 'UNSUPPORTED_MEDIA_TYPE', error: error.message ?? 'unsupported encoding' });
      return;
    }
    const status = error.status ?? 500;
    if (status >= 400 && status < 500) {
      response.status(status).json({ code: 'INVALID_REQUEST', error: error.message ?? 'bad request' });
      return;
    }
    logger.error({ err: { type: error.type, message: error.message }, method: request.method, path: request.path }, `${service} request failed`);
    response.status(500).json({ code: 'INTERNAL_ERROR', error: `internal error in the ${service}; see its log` });
  };
}

/** A JSON 404 naming the routes there are. */
export function notFoundHandler(routes: string): RequestHandler {
  return (request, response) => {
    response.status(404).json({ code: 'NOT_FOUND', error: `no route ${request.method} ${request.path}; ${routes}` });
  };
}

/** Logs each request once it is answered: method, path, status, duration; never headers or bodies. */
export function requestLog(logger: Logger): RequestHandler {
  return (request, response, next) => {
    // nothing to time or to listen for when the level leaves the line out (asked each time: a level may be changed live)
    if (!logger.isLevelEnabled('info')) return next();
    const start = performance.now();
    response.on('finish', () => {
      logger.info({ method: request.method, path: request.path, status: response.statusCode, duration_ms: Math.round(performance.now() - start) }, 'request');
    });
    next();
  };
}
