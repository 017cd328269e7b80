import type { Diagnostic } from '../core/index.js';
import { failedEntry, type ScanEntry } from './build-index.js';
import { definitionPath, type ToolEntry } from './sources/source.js';

// marked by an oid no listing has, so the next scan of a new commit reads the file again
const UNREAD = 'unread:';

/** The entry of a file the source could not read: reported, and read again by the next scan (its oid matches none). */
export function unreadEntry(entry: ToolEntry, error: unknown): ScanEntry {
  const reason = error instanceof Error ? error.message : String(error);
  const kind = entry.kind ?? 'tool';
  return failedEntry(kind, entry.folder, `${UNREAD}${entry.oid}`, {
    file: definitionPath(entry.folder, kind), line: 1, column: 1, severity: 'error', code: 'READ_FAILED',
    message: `the file could not be read from the repository (${reason.split('\n')[0]}); it is read again on the next scan`,
  });
}

/** Whether the entry (or its summary) is of a file that could not be read. */
export function isUnread(entry: { oid: string }): boolean {
  return entry.oid.startsWith(UNREAD);
}

/** Whether a source's answer to a read is a problem with the file rather than the file. */
export function isDiagnostic(value: object): value is Diagnostic {
  return 'severity' in value;
}
