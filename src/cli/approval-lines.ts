import type { ApprovalRecord } from '../store/index.js';
import { terminalSafe } from './terminal-safe.js';

// what an agent sent (params, tool name) and a policy's author wrote (its reason) reach the approver's terminal
// escaped: a bidi override could reorder the path a person approves (found in review)
// a decided request says who decided it, when, how and why, not the rule's reason and an expiry that no longer
// applies (a request cancelled as outdated read "expires … 'file-write' requires confirmation": review userX, X6)
export function summary(record: ApprovalRecord & { outdated?: string; registry?: string }): string {
  const state = record.decided_at ? decided(record) : `expires ${record.expires_at}  ${record.rule.reason}`;
  return terminalSafe(`${record.id}  ${record.status.padEnd(9)}  ${record.tool}  by ${record.caller}  ${state}${record.outdated ? `  OUTDATED: ${record.outdated}` : ''}${record.registry ? `  ANOTHER REGISTRY: ${record.registry}` : ''}`);
}

function decided(record: ApprovalRecord): string {
  // approved, then no gateway with its settings ran it: "expired by alice" read as if alice had let it expire (review userZ6 F10)
  if (record.status === 'expired' && record.decided_by !== null) {
    return `approved by ${record.decided_by} at ${record.decided_at} via ${record.decided_via}${record.decision_reason ? `: ${record.decision_reason}` : ''}; then expired at ${record.expires_at} with nothing run: no gateway with its settings ran it`;
  }
  return `${record.status} by ${record.decided_by ?? 'the clock'} at ${record.decided_at} via ${record.decided_via}${record.decision_reason ? `: ${record.decision_reason}` : ''}`;
}

export function detail(record: ApprovalRecord & { outdated?: string; registry?: string }): string {
  return [
    `${record.id}  ${record.status}${record.outdated ? '  OUTDATED' : ''}`,
    ...(record.outdated ? [`outdated  ${record.outdated}`] : []),
    ...(record.registry ? [`registry  ${record.registry}`] : []),
    `tool      ${record.tool} (${record.executor} ${record.method})`,
    `params    ${JSON.stringify(record.params)}`,
    `caller    ${record.caller}${record.session ? ` (session ${record.session})` : ''}`,
    `why       ${record.rule.reason}`,
    `commit    ${record.commit}`,
    `asked     ${record.created_at}, expires ${record.expires_at}`,
    ...(record.decided_at ? [`decided   ${decided(record)}`] : []),
    // who ran the approved call (an operator finds an interrupted run's process by it), and where the call runs
    ...(record.run ? [`run       by ${record.run.by}${record.receipt_id === null ? `, its lease until ${record.run.lease_until}` : ''}`] : []),
    // approved at an instance that runs calls elsewhere: a gateway of its place has not taken it yet (review userZ4, F3)
    ...(record.status === 'approved' && record.run === null && record.receipt_id === null ? [`run       not yet: it runs at the gateway that filed it (or one with its settings) before ${record.expires_at}, or not at all`] : []),
    ...(record.rule.place ? [`runs in   ${record.rule.place.workspace} (sandbox ${record.rule.place.sandbox}${record.rule.place.run_as === null ? '' : `, run_as ${record.rule.place.run_as}`})`] : []),
    // where it is approved when a process that runs calls elsewhere may not (the filing instance)
    ...(record.rule.filed_by ? [`filed by  ${record.rule.filed_by.url === null ? record.rule.filed_by.by : `${record.rule.filed_by.url} (${record.rule.filed_by.by})`}`] : []),
  ]
    .map(terminalSafe)
    .join('\n');
}
