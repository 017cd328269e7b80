import { byPlace, type Diagnostic } from './diagnostic.js';
import type { ToolIndex } from './tool-index.js';

/** What a listing of the index tells a caller of the definitions that failed to load, when it may not read them. */
export interface WithheldErrors {
  /** how many files hold errors (one file can hold several) */
  files: number;
  /** the same in words, and who can see which */
  note: string;
}

/** The scan's problems as one caller may read them: every error and warning, or only a count of the broken files. */
export interface ScanProblems {
  errors: Diagnostic[];
  warnings: Diagnostic[];
  errors_withheld?: WithheldErrors;
}

/**
 * Whether a caller with these roles reads the scan's errors (file, line, message) in a listing. A broken definition
 * has no `access:` block that can be read, so, as a match, a call or `tool_load` of it (review Z2, Z2-3), a listing
 * names it only to an admin — on a gateway with no credentials that is `local`, and `api_token` is one.
 */
export function readsScanErrors(roles: ReadonlySet<string>): boolean {
  return roles.has('admin');
}

/**
 * The index's errors and warnings for a caller with these roles: all of them for an admin; for anyone else no error,
 * no warning about a file that holds one, and `errors_withheld` counting those files (absent when there are none).
 */
export function scanProblemsFor(index: Pick<ToolIndex, 'errors' | 'warnings'>, roles: ReadonlySet<string>): ScanProblems {
  // each file's errors in the order of its lines, as hldp validate and hldp serve's start give them (review userZ5, F3)
  if (readsScanErrors(roles) || index.errors.length === 0) return { errors: [...index.errors].sort(byPlace), warnings: index.warnings };
  const broken = new Set(index.errors.map((error) => error.file));
  return {
    errors: [],
    // a warning about a broken file names it (and says what is in it) as its error would
    warnings: index.warnings.filter((warning) => !broken.has(warning.file)),
    errors_withheld: { files: broken.size, note: withheldNote(broken.size) },
  };
}

/** "2 definitions failed to load; an administrator can see which". */
export function withheldNote(files: number): string {
  return `${files} ${files === 1 ? 'definition' : 'definitions'} failed to load; an administrator can see which`;
}
