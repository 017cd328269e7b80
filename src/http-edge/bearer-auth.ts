import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether two secrets are equal, in time independent of where they differ (compared as hashes: length leaks nothing). */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Middleware admitting only `Authorization: Bearer <token>`; `whose` names the token in the 401 ("the gateway's API token"). */
export function bearerAuth(token: string, whose: string): RequestHandler {
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
      .json({ code: 'UNAUTHORIZED', error: `missing or wrong bearer token; send Authorization: Bearer <${whose}>` });
  };
}
