import { SECRET_NAME } from '../core/index.js';

const REDACTED = '[REDACTED]';

// query names read as credentials beside the project's rule (SECRET_NAME): a bare `key` or `*_key`, a signature, an
// auth code or session; `ref`, `sha`, `path`, `page`, `limit` and the like stay readable
const SECRET_QUERY_NAME = /(^|[-_.])(key|sig|auth|code|session|sid)$|signature/i;

// shorter "secrets" would blank out ordinary words (as redactSecrets' bound)
const SHORTEST_SECRET = 8;

/** Whether a query parameter's name (percent-decoded) says its value is a credential. */
export function secretQueryName(name: string): boolean {
  const decoded = queryDecoded(name);
  return SECRET_NAME.test(decoded) || SECRET_QUERY_NAME.test(decoded);
}

/**
 * A URL fit for an error message of an executor that builds its own query (`git-forgejo`: `?ref=main&page=2`): no
 * user:password part, no fragment, the value of each query parameter whose name looks secret (`token=`,
 * `access_token=`, `api_key=`, `sig=`) and of each that holds one of `secrets` replaced by `[REDACTED]`, a bare item
 * (no `=`: it may be the key itself) likewise, and each of `secrets` anywhere else in the URL, as written or
 * percent-encoded. Every other value is kept as sent, so that the receipt says which ref or page failed.
 */
export function redactSecretQuery(url: string, secrets: readonly string[]): string {
  const known = [...new Set(secrets)].filter((secret) => secret.length >= SHORTEST_SECRET).sort((a, b) => b.length - a.length);
  // read as the request reads it (WHATWG, as undici does): `https:user:pw@host`, a leading tab or `http:/user:pw@host`
  // are sent with their user:password, which a pattern over the text missed (review Z3, finding 2)
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REDACTED;
  }
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  const query = parsed.search === '' ? undefined : parsed.search.slice(1);
  const items = query === undefined ? undefined : query.split('&').map((item) => redactItem(item, known));
  // and once more over the whole: a token whose `&` or `=` would be read as the query's own, spanning two items
  return scrub(base + (items === undefined ? '' : `?${items.join('&')}`), known) + (parsed.href.includes('#') ? `#${REDACTED}` : '');
}

function redactItem(item: string, secrets: readonly string[]): string {
  if (item === '') return item;
  const equals = item.indexOf('=');
  if (equals === -1) return REDACTED;
  const name = item.slice(0, equals);
  const shownName = holdsSecret(name, secrets) ? REDACTED : name;
  return secretQueryName(name) || holdsSecret(item.slice(equals + 1), secrets) ? `${shownName}=${REDACTED}` : `${shownName}=${item.slice(equals + 1)}`;
}

function holdsSecret(text: string, secrets: readonly string[]): boolean {
  const plain = queryDecoded(text);
  return secrets.some((secret) => text.includes(secret) || plain.includes(secret));
}

// each secret, as written and as a URL encodes it, replaced
function scrub(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret), encodeURI(secret), formEncoded(secret)])) scrubbed = scrubbed.split(form).join(REDACTED);
  }
  return scrubbed;
}

// as URLSearchParams writes a value (a space as '+')
function formEncoded(text: string): string {
  return new URLSearchParams([['', text]]).toString().slice(1);
}

// a query component as a server reads it ('+' is a space); a malformed escape is read as written
function queryDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
