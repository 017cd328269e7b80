import type { ToolIndex } from '../core/index.js';
import type { CommandIo } from './command.js';
import { terminalSafe } from './terminal-safe.js';

type StaleIndex = Pick<ToolIndex, 'source' | 'commit' | 'scanned_at' | 'stale'>;

/**
 * Says on stderr that the index is the last one read, when the repository could not be read now (as /healthz says
 * `stale` for serve): a command answering from it may lack, or still have, what was pushed since.
 */
export function warnIfStale(index: StaleIndex, io: CommandIo): void {
  if (!index.stale) return;
  io.stderr.write(`hldp: WARNING: ${terminalSafe(`${index.source} could not be read (${index.stale.reason}), so this is ${lastRead(index, index.stale)}: what was pushed after that read is not in it`)}\n`);
}

/**
 * "its index as read at commit X (the scan's time), unreachable since (the first failed read)": the time of the scan
 * that made the index, from the cache, and not `stale.since`, which a command's own failed read sets to now; the
 * warning gave that as the index's time, and it moved on at each run (review userZ9, U9-6).
 */
export function lastRead(index: StaleIndex, stale: NonNullable<ToolIndex['stale']>): string {
  return `its index as read at commit ${index.commit} (${index.scanned_at}), unreachable since ${stale.since}`;
}
