import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * An HTTP server for an express app whose requests and responses are made with the app's own prototypes from the start.
 * Express gives every request and response its prototypes afterwards (`Object.setPrototypeOf`, in `app.handle`): each
 * object changed its hidden class in the middle of its life, and V8's inline caches in Node's HTTP code, the router
 * and the middleware missed on it, a fifth of the gateway's CPU a call (issue #18). Made with those prototypes, the
 * objects keep one shape, and express's `setPrototypeOf` finds the prototype already there and changes nothing: the
 * same objects, the same methods, as `app.listen` gives.
 */
export function expressServer(app: Express, options: { connectionsCheckingInterval?: number } = {}): Server {
  return createServer({ IncomingMessage: requestClassOf(app), ServerResponse: responseClassOf(app), ...options }, app);
}

// constructors as Node's own are written (functions called with `new`), whose `prototype` is the app's object
function requestClassOf(app: Express): typeof IncomingMessage {
  function AppRequest(this: IncomingMessage, socket: Socket): void {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  return AppRequest as unknown as typeof IncomingMessage;
}

function responseClassOf(app: Express): typeof ServerResponse {
  function AppResponse(this: ServerResponse, request: IncomingMessage, options?: unknown): void {
    (ServerResponse as unknown as (this: ServerResponse, request: IncomingMessage, options?: unknown) => void).call(this, request, options);
  }
  AppResponse.prototype = app.response;
  return AppResponse as unknown as typeof ServerResponse;
}
