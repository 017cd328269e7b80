import type { ChainReport } from '../store/index.js';
import { writeJson, type CommandIo } from './command.js';

/** Prints what `verify` found; exit status 0 for an intact chain, 1 for a broken one. */
export function printChainReport(report: ChainReport, io: CommandIo, json: boolean): number {
  if (json) writeJson(io, report);
  else if (report.broken) {
    io.stdout.write(`BROKEN at seq ${report.broken.seq} (${report.broken.reason}): ${report.broken.message}\n`);
    io.stderr.write(`${report.checked} receipts verified before it, from seq ${report.checkpoint.seq + 1}\n`);
  } else {
    const from = report.checkpoint.seq === 0 ? 'genesis' : `checkpoint seq ${report.checkpoint.seq} (${report.checkpoint.hash})`;
    io.stdout.write(`intact: ${report.checked} receipts from ${from} to head seq ${report.head.seq}\nhead ${report.head.hash}\n`);
  }
  return report.ok ? 0 : 1;
}
