import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';

interface HttpError {
  type?: string;
  status?: number;
  limit?: number;
  message?: string;
}

/** The one error handler: a JSON 4xx that says what to fix for a bad request, a bare 500 otherwise; never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: HttpError, _request, response, _next) => {
    if (error.type === 'entity.too.large') {
      response.status(413).json({ code: 'PAYLOAD_TOO_LARGE', error: `the request body is over the limit of ${error.limit} bytes; send less content` });
      return;
    }
    if (error.type === 'entity.parse.failed') {
      response.status(400).json({ code: 'MALFORMED_JSON', error: `the body is not valid JSON: ${error.message}` });
      return;
    }
    const status = error.status ?? 500;
    if (status >= 400 && status < 500) {
      response.status(status).json({ code: 'INVALID_REQUEST', error: error.message ?? 'bad request' });
      return;
    }
    logger.error({ err: { type: error.type, message: error.message } }, 'gatekeeper request failed');
    response.status(500).json({ code: 'INTERNAL_ERROR', error: 'internal error in the gatekeeper; see its log' });
  };
}
