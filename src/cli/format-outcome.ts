import { formatDiagnostic, type Receipt, type ToolIndex } from '../core/index.js';
import type { CallOutcome } from '../gateway/service/index.js';
import type { LeaseLapsed } from '../policy/index.js';
import { writeJson, writeLines, type CommandIo } from './command.js';
import { terminalSafe } from './terminal-safe.js';

/** Exit status of a call that waits for confirmation: nothing ran, and a script can tell this apart from a failure. */
export const EXIT_CONFIRMATION_REQUIRED = 3;

/**
 * Prints what a call or a confirmation came to, and returns the exit status. `stale`: the index answered from is the
 * last one read, the repository not readable now; --json then carries it beside what the call came to.
 */
export function printOutcome(outcome: CallOutcome, io: CommandIo, json: boolean, stale?: ToolIndex['stale']): number {
  const lapsed = outcome.kind === 'receipt' && outcome.lease_lapsed ? { lease_lapsed: outcome.lease_lapsed } : {};
  if (json) writeJson(io, { ...(outcome.kind === 'receipt' ? outcome.receipt : outcome.kind === 'confirmation_required' ? outcome.confirmation : stripKind(outcome)), ...(stale ? { stale } : {}), ...lapsed });
  switch (outcome.kind) {
    case 'receipt':
      if (!json) printReceipt(outcome.receipt, io);
      // the run's receipt is not what its request records: said last, where a person reads first, and not a success
      if (outcome.lease_lapsed) return leaseLapsed(outcome.lease_lapsed, io);
      return outcome.receipt.ok ? 0 : 1;
    case 'confirmation_required':
      if (!json) writeLines(io.stderr, [outcome.confirmation.message, `params: ${JSON.stringify(outcome.confirmation.params)}`]);
      return EXIT_CONFIRMATION_REQUIRED;
    case 'not_found':
      if (!json) writeLines(io.stderr, [outcome.error, outcome.suggestion]);
      return 1;
    case 'broken':
      if (!json) writeLines(io.stderr, [outcome.error, ...outcome.diagnostics.map((diagnostic) => terminalSafe(formatDiagnostic(diagnostic)))]);
      return 1;
    case 'invalid_params':
      if (!json) writeLines(io.stderr, [outcome.error, `schema: ${outcome.schema}`]);
      return 1;
    case 'confirmation_invalid':
    case 'refused':
    case 'timeout_not_allowed':
    case 'store_unavailable':
    case 'too_many_pending':
    case 'too_many_calls':
      if (!json) writeLines(io.stderr, [outcome.error]);
      return 1;
    case 'substituted':
      if (!json) writeLines(io.stderr, [outcome.message]);
      return 1;
  }
}

/**
 * Says that an approved run's lease lapsed while it ran (another process closed its request as interrupted), on
 * stderr whatever the output format; 1: what ran is not what the request records. Before, `hldp confirm` printed the
 * run's receipt and exited 0 (review O, O10).
 */
export function leaseLapsed(lapsed: LeaseLapsed, io: CommandIo): number {
  io.stderr.write(`hldp: WARNING: ${terminalSafe(lapsed.error)}\n`);
  return 1;
}

/** A receipt for people: a summary line on stderr, the raw output on stdout exactly as the tool produced it. */
export function printReceipt(receipt: Receipt, io: CommandIo): void {
  io.stdout.write(receipt.output);
  if (receipt.error !== null) io.stderr.write(receipt.error.endsWith('\n') || receipt.error === '' ? receipt.error : `${receipt.error}\n`);
  else if (receipt.stderr) io.stderr.write(receipt.stderr);
  io.stderr.write(`${summaryLine(receipt)}\n`);
}

/** One line: outcome, tool, executor/method, duration, exit and cut, receipt id. */
export function summaryLine(receipt: Receipt): string {
  const outcome = receipt.ok ? 'ok' : `FAILED ${receipt.code ?? ''}`.trim();
  const exit = receipt.exit_code === null ? '' : ` exit ${receipt.exit_code}`;
  const signal = receipt.signal ? ` signal ${receipt.signal}` : '';
  const cut = receipt.cut_bytes ? ` (${receipt.cut_bytes} of ${receipt.output_bytes} bytes cut)` : '';
  const lossy = receipt.output_lossy || receipt.stderr_lossy ? ` (${receipt.output_lossy ? 'stdout' : 'stderr'}${receipt.output_lossy && receipt.stderr_lossy ? ' and stderr' : ''} not UTF-8: invalid bytes shown as U+FFFD)` : '';
  return `[${outcome}] ${receipt.tool} ${receipt.executor}/${receipt.method} ${receipt.duration_ms} ms${exit}${signal}${cut}${lossy} · receipt ${receipt.id}`;
}

/**
 * A stored receipt in full, for a human reading a failure later: terminal-safe, its lines and tabs kept, as the list
 * view and `approvals show` are — a receipt opened later replayed the tool's escapes raw: clear the screen, set the
 * clipboard (review R, R18). `--json` keeps the receipt as stored.
 */
export function receiptDetail(receipt: Receipt): string {
  return [
    `receipt   ${receipt.id}`,
    `tool      ${receipt.tool} (${receipt.executor}/${receipt.method}) at commit ${receipt.commit}`,
    `started   ${receipt.started_at}  finished ${receipt.finished_at}  ${receipt.duration_ms} ms`,
    // who called it, in which session, under which deadline: the first questions about a failure read later (review userZ5, F13)
    `caller    ${receipt.caller ?? '-'}  session ${receipt.session ?? '-'}  deadline ${receipt.timeout_ms === undefined ? '-' : `${receipt.timeout_ms} ms${receipt.timeout_from ? ` (from ${receipt.timeout_from})` : ''}`}`,
    `result    ${receipt.ok ? 'ok' : `FAILED ${receipt.code ?? ''}`}  exit ${receipt.exit_code ?? '-'}  signal ${receipt.signal ?? '-'}  timed out ${receipt.timed_out ? 'yes' : 'no'}  cut ${receipt.cut_bytes} of ${receipt.output_bytes} bytes`,
    ...(receipt.confirmation ? [`request   ${requestLink(receipt)}`] : []),
    ...(receipt.source ? [`source    ${receipt.source.repository}${receipt.source.host === undefined ? '' : ` on ${receipt.source.host}`}${receipt.source.url ? ` (${receipt.source.url})` : ''}${receipt.source.withheld ? ` (withheld: ${receipt.source.withheld})` : ''}`] : []),
    `params    ${JSON.stringify(receipt.params)}`,
    '--- output ---',
    receipt.output,
    '--- error ---',
    receipt.error ?? '',
    ...(receipt.stderr && receipt.stderr !== receipt.error ? ['--- stderr ---', receipt.stderr] : []),
  ]
    .join('\n')
    .split('\n')
    .map((line) => line.split('\t').map(terminalSafe).join('\t'))
    .join('\n');
}

function stripKind<T extends { kind: string }>(outcome: T): Omit<T, 'kind'> {
  const { kind: _kind, ...rest } = outcome;
  return rest;
}

// the request a call went through and how it was decided: "confirmed" labelled a denied or expired one too (review userY, Y7)
function requestLink(receipt: Receipt): string {
  const approval = receipt.approval;
  if (!approval) return `${receipt.confirmation}`;
  const how = approval.status === 'expired' ? 'expired, decided by no one' : `${approval.status}${approval.decided_by ? ` by ${approval.decided_by}` : ''}`;
  return `${receipt.confirmation} (${how})`;
}
