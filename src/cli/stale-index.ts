import type { ToolIndex } from '../core/index.js';
import type { CommandIo } from './command.js';
import { terminalSafe } from './terminal-safe.js';

/**
 * Says on stderr that the index is the last one read, when the repository could not be read now (as /healthz says
 * `stale` for serve): a command answering from it may lack, or still have, what was pushed since.
 */
export function warnIfStale(index: Pick<ToolIndex, 'source' | 'commit' | 'stale'>, io: CommandIo): void {
  if (!index.stale) return;
  io.stderr.write(`hldp: WARNING: ${terminalSafe(`${index.source} could not be read (${index.stale.reason}), so this is its index as last read, at commit ${index.commit} (${index.stale.since}): what was pushed since is not in it`)}\n`);
}
