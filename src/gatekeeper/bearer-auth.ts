import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Middleware admitting only `Authorization: Bearer <token>`; compared in constant time, on hashes so that length leaks nothing. */
export function bearerAuth(token: string): RequestHandler {
  const expected = digest(token);
  return (request, response, next) => {
    const header = request.get('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!), expected)) {
      next();
      return;
    }
    response
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ code: 'UNAUTHORIZED', error: 'missing or wrong bearer token; send Authorization: Bearer <the gatekeeper token>' });
  };
}
