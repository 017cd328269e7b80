/**
 * A name (a params key, a header, a query parameter) whose value is taken for a credential: shown `[REDACTED]` where
 * the gateway shows what was sent (the console's receipt views, a `git-forgejo` URL in an error).
 */
export const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|authorization|cookie|credential|private[-_]?key/i;

/**
 * What a person deciding a call is told when its params hold the gateway's own secrets: which (by setting, never the
 * value), and that approving runs them as written where the console and `hldp approvals show` print `[REDACTED]`
 * (review userZ6 F12: approved as "looks harmless", the admin token was written to the workspace in clear).
 */
export function secretsHeldWords(settings: readonly string[]): string {
  return `Holds ${settings.length === 1 ? 'a secret' : 'secrets'} of this gateway: ${settings.join(', ')}. Shown as [REDACTED], ${settings.length === 1 ? 'it is' : 'they are'} sent as written: approving hands ${settings.length === 1 ? 'it' : 'them'} to the tool in clear, and whatever the tool writes (a file, a message, a request) keeps ${settings.length === 1 ? 'it' : 'them'}; the receipt shows [REDACTED] again.`;
}
