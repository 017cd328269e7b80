/**
 * A name (a params key, a header, a query parameter) whose value is taken for a credential: shown `[REDACTED]` where
 * the gateway shows what was sent (the console's receipt views, a `git-forgejo` URL in an error).
 */
export const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|authorization|cookie|credential|private[-_]?key/i;
