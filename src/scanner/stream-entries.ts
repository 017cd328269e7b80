import { failedEntry, parseEntry } from './build-index.js';
import { summarise, type EntrySummary, type SummarisedEntry, type ToolSummary } from './entry-summary.js';
import type { CacheWrite } from './index-cache.js';
import { createSummaryParser } from './parse-pool.js';
import { collectGarbage } from './full-collection.js';
import { ScanStopped, type Snapshot, type ToolEntry } from './sources/source.js';
import { isDiagnostic, unreadEntry } from './unread-entry.js';
import type { ParseOptions } from './yaml-mapping.js';

// reads overlap object-store I/O; parsing runs in the pool's threads
const READ_CONCURRENCY = 16;

// lines written at once
const SLICE = 500;

// entries read past the one the file waits for, beyond which readers wait: parses come back nearly in order, so this
// bounds only a stalled write (at ~1.3 KB a line, 1,024 of them are ~1.3 MB; 4,096 before a thread parsed beside this one)
const MAX_AHEAD = 1024;

/** What a streamed read kept: each entry's summary, in the listing's order, and the errors of the reads that failed. */
export interface StreamedEntries {
  summaries: EntrySummary[];
  readFailures: unknown[];
}

/**
 * Reads and parses every entry of the listing, appending each entry's line to `write` in the listing's order as it
 * comes back (a slice at a time) and keeping only its summary: a cold scan holds what assembling the index needs,
 * not every entry. A file that cannot be read is an entry that says so, as in any scan. Throws what writing threw.
 */
export async function streamEntries(snapshot: Snapshot, listing: readonly ToolEntry[], options: ParseOptions, write: Pick<CacheWrite, 'append'>): Promise<StreamedEntries> {
  const parser = createSummaryParser(listing.length, options);
  const slots: Array<SummarisedEntry | Promise<SummarisedEntry> | undefined> = new Array(listing.length);
  const summaries: EntrySummary[] = new Array(listing.length);
  const readFailures: unknown[] = [];
  let next = 0;
  let written = 0;
  let failure: { error: unknown } | undefined;
  let wakeWriter: (() => void) | undefined;
  let waitingReaders: Array<() => void> = [];
  const wakeReaders = (): void => {
    const waiting = waitingReaders;
    waitingReaders = [];
    for (const resolve of waiting) resolve();
  };
  const put = (position: number, slot: SummarisedEntry | Promise<SummarisedEntry>): void => {
    slots[position] = slot;
    if (position === written) wakeWriter?.();
  };

  const reader = async (): Promise<void> => {
    while (next < listing.length && !failure) {
      await parser.ready();
      while (next - written > MAX_AHEAD && !failure) await new Promise<void>((resolve) => waitingReaders.push(resolve));
      if (next >= listing.length || failure) break;
      const position = next++;
      const entry = listing[position]!;
      let file: Awaited<ReturnType<Snapshot['read']>>;
      try {
        file = await snapshot.read(entry);
      } catch (error) {
        // a stopped scan is no file's problem: it ends here, its cache file abandoned
        if (error instanceof ScanStopped) {
          failure ??= { error };
          wakeReaders();
          wakeWriter?.();
          break;
        }
        readFailures.push(error);
        put(position, summarise(unreadEntry(entry, error)));
        continue;
      }
      // a parser thread that died takes its batch with it: those files are parsed again here
      put(position, isDiagnostic(file) ? summarise(failedEntry(entry.kind ?? 'tool', entry.folder, entry.oid, file)) : parser.parse(file).catch(() => summarise(parseEntry(file, options))));
    }
  };

  const writer = async (): Promise<void> => {
    let lines: Uint8Array[] = [];
    try {
      while (written < listing.length) {
        let slot = slots[written];
        while (slot === undefined) {
          if (failure) return;
          await new Promise<void>((resolve) => (wakeWriter = resolve));
          slot = slots[written];
        }
        wakeWriter = undefined;
        const { summary, line } = await slot;
        slots[written] = undefined;
        if ('tool' in summary && summary.tool) (summary.tool as ToolSummary).position = written;
        summaries[written] = summary;
        lines.push(line);
        written++;
        if (waitingReaders.length && next - written <= MAX_AHEAD / 2) wakeReaders();
        if (lines.length === SLICE || written === listing.length) {
          const slice = lines;
          lines = [];
          await write.append(slice);
        }
      }
    } catch (error) {
      failure = { error };
      wakeReaders();
    }
  };

  try {
    await Promise.all([writer(), ...Array.from({ length: Math.min(READ_CONCURRENCY, listing.length) }, reader)]);
  } finally {
    // what reading held (a pack's windows, delta bases) is not kept while the index is built
    snapshot.release?.();
    await parser.close();
    // what reading beside a thread left (its messages' copies, in the old generation) collected before the index is assembled
    if (parser.threads > 0) collectGarbage();
  }
  if (failure) throw failure.error;
  return { summaries, readFailures };
}
