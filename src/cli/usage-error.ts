/** A command line that cannot be run as written; the message says how to write it. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'USAGE';
}
