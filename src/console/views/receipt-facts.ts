import { DEFAULT_TIMEOUT_MS, type Receipt, type ReceiptApproval, type ToolDefinition } from '../../core/index.js';
import type { ConsoleApprovalRecord } from '../console-backend.js';
import { html, revealed, type Html } from '../html.js';
import { time } from './layout.js';

/** One fact of a receipt: its label, and its value or a dash. */
export function row(label: string, value: unknown): Html {
  return html`<dt>${label}</dt><dd>${value === null || value === undefined || value === '' ? html`<span class="muted">—</span>` : value}</dd>`;
}

const DECISIONS: Record<ReceiptApproval['status'], string> = { approved: 'approved', denied: 'denied', expired: 'expired: no one decided in time', cancelled: 'cancelled' };

const VIA: Record<ReceiptApproval['via'], string> = {
  api: 'as a principal (the console, POST /v1/approvals/:id/approve|deny or hldp approvals)',
  cli: 'as a principal, with hldp approvals approve reading the store, for the gateway that filed it to run',
  confirm: "with the caller's confirmation token (hldp confirm, POST /v1/confirm)",
  elicitation: 'by the person at the MCP client (elicitation)',
  expiry: 'by the clock: the request expired',
  outdated: 'closed as outdated: what it was judged against changed',
};

/** A decision's status in words. */
export function decisionWords(status: string): string {
  return (DECISIONS as Record<string, string>)[status] ?? status;
}

/** How a request was decided, in words (`api`, `confirm`, …). */
export function viaWords(via: string): string {
  return (VIA as Record<string, string>)[via] ?? via;
}

/** A rule's place and, when known, what it says. */
export function ruleFact(where: string | null, reason: string | undefined): Html {
  // the policy keeps a rule's reason with its place at the end, which the row shows first
  const said = reason !== undefined && where !== null && reason.endsWith(` (${where})`) ? reason.slice(0, -where.length - 3) : reason;
  return html`${where === null ? "the tool's own constraints.require_confirm" : html`<code>${where}</code>`}${said ? html`: <span data-rule-reason>${revealed(said)}</span>` : ''}`;
}

/** A receipt's `approval` when it is the link the gateway stores (an object with an id); anything else read as none. */
function linkOf(receipt: Receipt): ReceiptApproval | undefined {
  const approval = (receipt as { approval?: unknown }).approval;
  return typeof approval === 'object' && approval !== null && typeof (approval as { id?: unknown }).id === 'string' ? (approval as ReceiptApproval) : undefined;
}

/**
 * The approval a call went through: the decision, who made it, how, when and why, and the rule that asked for it
 * (with the rule's own reason when the request is readable); a dash when the call needed none. Every text here can
 * come from an agent or a decider (a reason, a principal's name), so each goes through `html`, and what a person reads
 * to judge a decision is `revealed`.
 */
export function approvalRows(receipt: Receipt, request: ConsoleApprovalRecord | undefined): Html {
  const link = linkOf(receipt);
  if (!link) {
    // a receipt stored with only the request's id: say which request, and that it keeps no more
    return row('Approval', receipt.confirmation ? html`<code>${receipt.confirmation}</code> <span class="muted">(the receipt keeps no decision)</span>` : null);
  }
  return html`${row('Approval', html`<a href="/console/approvals/${encodeURIComponent(link.id)}"><code>${link.id}</code></a>`)}
${row('Decision', html`<span class="decision ${link.status}" data-decision="${link.status}">${decisionWords(link.status)}</span>`)}
${row('Decided by', link.decided_by === null ? null : html`<span data-decided-by>${revealed(link.decided_by)}</span>`)}
${row('Via', viaWords(link.via))}
${row('Decided', time(link.decided_at))}
${row('Their reason', link.reason === null || link.reason === '' ? null : html`<span data-decision-reason>${revealed(link.reason)}</span>`)}
${row('Rule', ruleFact(link.rule, request?.rule.reason))}
${request ? row('Asked', html`${time(request.created_at)} <span class="muted">by ${revealed(request.caller)}, to be decided by ${time(request.expires_at)}</span>`) : ''}`;
}

/**
 * The deadline the call ran under and where it came from, as the receipt records it (`timeout_from`). A receipt stored
 * before receipts kept the source has it inferred, and says so: its milliseconds are judged against the tool's
 * `timeout_ms` at the same commit, and where that does not tell, the page says what it may have been.
 */
export function deadlineRow(receipt: Receipt, definition: ToolDefinition | undefined, servedCommit: string): Html {
  const ms = receipt.timeout_ms;
  if (typeof ms !== 'number') return row('Deadline', html`<span class="muted">not recorded (a receipt stored before receipts kept it)</span>`);
  const shown = html`<span data-deadline-ms="${ms}">${ms.toLocaleString('en')} ms</span>`;
  // stored text, read as text: a receipt is whatever its store holds
  const from = receipt.timeout_from === undefined || receipt.timeout_from === null ? undefined : String(receipt.timeout_from);
  if (from !== undefined) {
    const own = definition !== undefined && servedCommit === receipt.commit ? definition.constraints.timeout_ms : undefined;
    return row('Deadline', html`${shown} <span class="muted" data-deadline-from="${from}">— ${recordedSource(from, own, receipt)}</span>`);
  }
  return row('Deadline', html`${shown} <span class="muted" data-deadline-from="inferred">— ${inferredSource(ms, receipt, definition, servedCommit)} (inferred: the receipt was stored before receipts kept where the deadline came from)</span>`);
}

// a recorded source in words; `own` is the tool's timeout_ms at the receipt's commit, where the page knows it
function recordedSource(from: string, own: number | undefined, receipt: Receipt): string {
  switch (from) {
    case 'tool':
      return "the tool's constraints.timeout_ms";
    case 'default':
      return 'the default 30 s of a tool whose constraints set no timeout_ms (or set 30,000)';
    case 'ceiling':
      return `the gateway's max_call_timeout_ms, which cut the tool's timeout_ms${own === undefined ? '' : ` (${own.toLocaleString('en')} ms)`}`;
    case 'call':
      return 'asked for by the call (its timeout_ms)';
    case 'approval':
      return linkOf(receipt)?.via === 'confirm' ? 'asked for when the caller confirmed it with its token' : 'asked for by who approved it';
    default:
      // a source a newer gateway records: shown as it is stored
      return from;
  }
}

// the source of an older receipt's deadline, judged against the tool's timeout_ms at the same commit
function inferredSource(ms: number, receipt: Receipt, definition: ToolDefinition | undefined, servedCommit: string): string {
  const own = definition?.constraints.timeout_ms;
  // the parsed definition has the default filled in: 30 s is the default unless the file wrote the same (review userZ2, U6)
  const ownWords = own === DEFAULT_TIMEOUT_MS ? `the tool's timeout_ms (${own.toLocaleString('en')} ms, the default when its constraints set none)` : `the tool's timeout_ms (${own?.toLocaleString('en')} ms)`;
  // who may have asked for another: an approver only where the call went through an approval
  const askers = linkOf(receipt) || receipt.confirmation ? 'the call or by who approved it' : 'the call';
  return own === undefined || servedCommit !== receipt.commit
    ? `the tool's timeout_ms or one the call asked for: the receipt does not say which${own === undefined ? '' : ` (the tool as served now sets ${own.toLocaleString('en')} ms)`}`
    : own === ms
      ? own === DEFAULT_TIMEOUT_MS ? "the default 30 s of a tool whose constraints set no timeout_ms (or set 30,000)" : "the tool's constraints.timeout_ms"
      : ms > own
        ? `longer than ${ownWords}: asked for by ${askers}`
        : `shorter than ${ownWords}: asked for by ${askers}, or the gateway's max_call_timeout_ms`;
}

/**
 * Where the call's bytes went, each count named for what it counts: produced by the tool (output and standard error
 * together, before any cut), cut by its `max_output_bytes`, stored (each text as kept, a cut marker included); how much
 * of a long text this page shows is said above the text itself.
 */
export function outputRow(receipt: Receipt, cut: Record<string, number>): Html {
  const bytes = (text: string): number => new TextEncoder().encode(text).length;
  const stored = [`output ${(cut.output ?? bytes(receipt.output)).toLocaleString('en')}`];
  if (receipt.stderr || cut.stderr !== undefined) stored.push(`standard error ${(cut.stderr ?? bytes(receipt.stderr)).toLocaleString('en')}`);
  const cutBy = receipt.cut_bytes > 0 ? `${receipt.cut_bytes.toLocaleString('en')} cut by its max_output_bytes (marked in place)` : 'none cut';
  return row('Bytes', html`<span data-produced="${receipt.output_bytes}">${receipt.output_bytes.toLocaleString('en')} produced by the tool</span> <span class="muted">(output and standard error together)</span>; ${cutBy}; stored: ${stored.join(', ')} bytes${receipt.cut_bytes > 0 ? ' (cut markers included)' : ''}`);
}
