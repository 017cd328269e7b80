import { ENTRY_KINDS } from '../core/index.js';
import { failedEntry, parseEntry, type ScanEntry } from './build-index.js';
import { createParser } from './parse-pool.js';
import { ScanStopped, type Snapshot, type ToolEntry } from './sources/source.js';
import { isDiagnostic, unreadEntry } from './unread-entry.js';
import type { ParseOptions } from './yaml-mapping.js';

// reads overlap object-store I/O; parsing stays on this thread
const READ_CONCURRENCY = 16;

/**
 * Reads and parses the entries at `positions` of `results` (`entryAt(i)` is the one at `positions[i]`), each
 * replaced by what it yields; the parses run in the pool's threads while the next files are read. A file that cannot
 * be read is an entry that says so; throws when none of several could be read (the source is at fault).
 */
export async function readChanged(snapshot: Snapshot, positions: readonly number[], entryAt: (at: number) => ToolEntry, results: Array<ScanEntry | Promise<ScanEntry>>, options: ParseOptions): Promise<void> {
  const parser = createParser(positions.length, options);
  const readFailures: unknown[] = [];
  let stopped: { error: unknown } | undefined;
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < positions.length && !stopped) {
      await parser.ready();
      if (next >= positions.length) break;
      const at = next++;
      const position = positions[at]!;
      const entry = entryAt(at);
      let file: Awaited<ReturnType<Snapshot['read']>>;
      try {
        file = await snapshot.read(entry);
      } catch (error) {
        // a stopped scan is no file's problem: it ends here
        if (error instanceof ScanStopped) {
          stopped ??= { error };
          break;
        }
        readFailures.push(error);
        results[position] = unreadEntry(entry, error);
        continue;
      }
      // a parser thread that died takes its batch with it: those files are parsed again here
      results[position] = isDiagnostic(file)
        ? failedEntry(entry.kind ?? 'tool', entry.folder, entry.oid, file)
        : parser.parse(file).catch(() => parseEntry(file, options));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, positions.length) }, reader));
  } finally {
    // what reading held (a pack's content, delta bases: ~50 MB at 100,000 tools) is not kept while the index is built
    snapshot.release?.();
    await parser.close();
  }
  if (stopped) throw stopped.error;
  // one unreadable object is that file's problem; when none of several can be read, the source is at fault
  if (readFailures.length > 1 && readFailures.length === positions.length) throw readFailures[0];
  // only the parses are awaited: Promise.all over every entry queues one reaction per entry in one turn
  // of the event loop (~100 ms at 100,000 tools, nearly all of them unchanged)
  for (const position of positions) results[position] = await results[position]!;
}

/** How an entry of that kind and folder sorts against another in a listing (kinds in ENTRY_KINDS order, then folders as JavaScript strings sort). */
export function compareEntries(a: Pick<ToolEntry, 'kind' | 'folder'>, b: Pick<ToolEntry, 'kind' | 'folder'>): number {
  const rank = ENTRY_KINDS.indexOf(a.kind ?? 'tool') - ENTRY_KINDS.indexOf(b.kind ?? 'tool');
  return rank !== 0 ? rank : a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0;
}

/**
 * Where an entry of that kind and folder is, or would go, in a list in the listing's order, by binary search: its
 * position and whether the entry there is it (else the position is where it would be inserted).
 */
export function searchEntries(length: number, entryAt: (position: number) => Pick<ToolEntry, 'kind' | 'folder'>, entry: Pick<ToolEntry, 'kind' | 'folder'>): { position: number; found: boolean } {
  let low = 0;
  let high = length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compareEntries(entryAt(middle), entry);
    if (order === 0) return { position: middle, found: true };
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return { position: low, found: false };
}
