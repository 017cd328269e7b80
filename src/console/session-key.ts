import { createHash, randomBytes } from 'node:crypto';

/** Where the deployment's cookie-signing key is kept in the store. */
const SESSION_KEY_SECRET = 'console.session_key';

/**
 * The key console cookies are signed with, the same in every instance of a deployment (so that instances behind one
 * load balancer accept each other's sign-ins): derived from the `api_token` when there is one, whatever the
 * instances' stores; otherwise 32 random bytes made once by the first instance and kept in the shared store
 * (`secrets`, its deployment secrets; the principals' token digests in the config are no secret, so nothing in it
 * could serve). Never logged.
 */
export async function consoleSessionKey(token: string | undefined, secrets: { getOrCreate(name: string, make: () => string): Promise<string> }): Promise<Buffer> {
  if (token !== undefined) return createHash('sha256').update(`brush-holder console sessions\0${token}`).digest();
  const kept = Buffer.from(await secrets.getOrCreate(SESSION_KEY_SECRET, () => randomBytes(32).toString('base64')), 'base64');
  // fail closed on a value that is not a key (edited by hand): signing with it would make cookies guessable
  if (kept.length < 32) throw new Error(`the console's signing key in the store ('${SESSION_KEY_SECRET}' in deployment_secrets) is not 32 bytes of base64; delete that row and restart, and every instance makes a new one`);
  return kept;
}
