import type { ErrorRequestHandler, Response } from 'express';

/** JSON-RPC 2.0's own error codes (§5.1), which an endpoint speaking it answers with rather than the REST shape. */
export const JSON_RPC = { parseError: -32700, invalidRequest: -32600, invalidParams: -32602 } as const;

/** A JSON-RPC error with `id: null` (the request's id could not be read, or it is not one request): what the MCP transport spec asks. */
export function sendJsonRpcError(response: Response, status: number, code: number, message: string): void {
  response.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * The body parser's failures on a JSON-RPC endpoint, in its shape: a body that is not JSON is -32700, one over the
 * limit or in an encoding not read is -32600; a JSON-RPC client could not read the REST `{code, error}` (review userU, F9).
 */
export function jsonRpcBodyErrors(): ErrorRequestHandler {
  return (error: { type?: string; limit?: number; message?: string }, _request, response, next) => {
    if (response.headersSent) return next(error);
    if (error.type === 'entity.parse.failed') return sendJsonRpcError(response, 400, JSON_RPC.parseError, `Parse error: the body is not valid JSON: ${error.message ?? ''}`);
    if (error.type === 'entity.too.large') return sendJsonRpcError(response, 413, JSON_RPC.invalidRequest, `Invalid Request: the body is over the limit of ${error.limit} bytes; send less`);
    if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') return sendJsonRpcError(response, 415, JSON_RPC.invalidRequest, `Invalid Request: ${error.message ?? 'unsupported encoding'}; send UTF-8 JSON, not compressed`);
    next(error);
  };
}
