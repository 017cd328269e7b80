/** Why a repository could not be read at all (a broken definition is a diagnostic, never this). */
export type ScanErrorCode =
  | 'SOURCE_NOT_FOUND'
  | 'SOURCE_UNREACHABLE'
  | 'REF_NOT_FOUND'
  | 'UNSUPPORTED_OBJECT_FORMAT'
  | 'AUTHENTICATION_FAILED';

/** A repository that cannot be scanned, with a literal code and a message that names the fix. */
export class ScanError extends Error {
  override readonly name = 'ScanError';

  constructor(
    readonly code: ScanErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Serialises without a stack, for JSON surfaces. */
  toJSON(): { code: ScanErrorCode; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}
