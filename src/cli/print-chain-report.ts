import type { ChainReport } from '../store/index.js';
import { writeJson, type CommandIo } from './command.js';
import { terminalSafe } from './terminal-safe.js';

/**
 * Prints what `verify` found; exit status 0 for an intact chain, 1 for a broken one. `store` names what was walked, on
 * stderr: "intact: 0 receipts" of an empty SQLite file, made by an earlier read, passed while the gateway's receipts
 * were in PostgreSQL (review userZ4, F7).
 */
export function printChainReport(report: ChainReport, io: CommandIo, json: boolean, store?: string): number {
  if (json) writeJson(io, report);
  else if (report.broken) {
    io.stdout.write(`BROKEN at seq ${report.broken.seq} (${report.broken.reason}): ${report.broken.message}\n`);
    io.stderr.write(`${report.checked} receipts verified before it, from seq ${report.checkpoint.seq + 1}${store ? `, in ${store}` : ''}\n`);
  } else {
    const from = report.checkpoint.seq === 0 ? 'genesis' : `checkpoint seq ${report.checkpoint.seq} (${report.checkpoint.hash})`;
    io.stdout.write(`intact: ${report.checked} receipts from ${from} to head seq ${report.head.seq}\nhead ${report.head.hash}\n`);
    if (store) io.stderr.write(terminalSafe(report.head.seq === 0 ? `no receipts in ${store}` : `walked the receipts in ${store}`) + '\n');
  }
  return report.ok ? 0 : 1;
}
