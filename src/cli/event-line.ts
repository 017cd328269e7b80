import { isFailure, type HldpEvent } from '../events/index.js';
import { terminalSafe } from './terminal-safe.js';

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

/** The first line of a text, at most `width` characters (made terminal-safe with the rest of its event's line). */
function firstLine(text: unknown, width = 160): string {
  if (typeof text !== 'string') return '';
  const line = (text.split('\n').find((part) => part.trim() !== '') ?? '').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** What one event says, in one line. */
function describe(event: HldpEvent): string {
  const data = event.data;
  switch (event.type) {
    case 'receipt.stored': {
      const mark = data.ok ? 'ok  ' : 'FAIL';
      const detail = data.ok ? '' : `  ${String(data.code ?? '')}${data.exit_code !== null && data.exit_code !== undefined ? ` exit ${String(data.exit_code)}` : ''}  ${firstLine(data.error)}`;
      return `${mark} ${String(data.tool)} ${String(data.duration_ms)} ms  receipt ${String(data.receipt)}${detail}`;
    }
    case 'call.rejected':
      return `REJECTED ${String(data.tool ?? '')} ${String(data.code)}  ${firstLine(data.error)}`;
    case 'approval.requested':
      // who asked, why it waits and for whom: an approver watching tail decides from this line (review userV, V10)
      return `APPROVAL? ${String(data.tool)} ${String(data.approval)} by ${String(data.caller ?? '?')} for ${String(data.approvers ?? '?')} until ${String(data.expires_at)}${data.reason ? `: ${firstLine(data.reason)}` : ''}`;
    case 'approval.resolved':
      // an approved call that then failed says so: "approved" alone read as success (review userV, V4)
      return `APPROVAL ${String(data.decision)} ${String(data.tool)} ${String(data.approval)}${data.decision === 'approved' && data.ok === false ? ` → FAIL ${String(data.code ?? '')}` : ''}${data.reason ? `: ${firstLine(data.reason)}` : ''}`;
    case 'scan.completed':
      return `scan ${data.changed ? `${String(data.previous).slice(0, 12)} → ${String(data.commit).slice(0, 12)}` : `unchanged ${String(data.commit).slice(0, 12)}`}, ${String(data.tools)} tools, ${String(data.errors)} broken`;
    case 'scan.failed':
      return `SCAN FAILED  ${firstLine(data.error)}`;
    case 'definitions.broken': {
      const errors = Array.isArray(data.errors) ? (data.errors as Array<{ file: string; line: number; column: number; message: string }>) : [];
      return `BROKEN ${errors.map((error) => `${error.file}:${error.line}:${error.column}: ${firstLine(error.message, 80)}`).join('; ')}`;
    }
  }
}

/**
 * One line of `hldp tail`: time, id, type and what happened; failures in red when `color` is on. Every value in it
 * is terminal-safe: a tool name an agent sent, a tool's stderr, can neither steer the terminal nor start a line.
 */
export function eventLine(event: HldpEvent, color: boolean): string {
  const text = terminalSafe(`${event.at}  #${event.id}  ${event.type.padEnd(18)}  ${describe(event)}`);
  if (!color) return text;
  if (isFailure(event)) return `${RED}${text}${RESET}`;
  if (event.type === 'receipt.stored') return `${GREEN}${text}${RESET}`;
  return `${DIM}${text}${RESET}`;
}
