import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether two secrets are equal, in time independent of where they differ (compared as hashes: length leaks nothing). */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether an `Authorization` header carries `Bearer <token>`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && secretsEqual(match[1]!, token);
}

/** Middleware admitting only `Authorization: Bearer <token>`; `whose` names the token in the 401 ("the gateway's API token"). */
export function bearerAuth(token: string, whose: string): RequestHandler {
  return (request, response, next) => {
    if (bearerMatches(request.get('authorization'), token)) {
      next();
      return;
    }
    response
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ code: 'UNAUTHORIZED', error: `missing or wrong bearer token; send Authorization: Bearer <${whose}>` });
  };
}
