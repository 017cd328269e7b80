import type { ApprovalFiler, ApprovalRecord, RunPlace } from '../store/index.js';
import type { LiveInstances } from './live-instances.js';
import { filerWords, placeDifference } from './run-place.js';

/**
 * Where a request's call runs when not here: its words, and whether an approval here is refused. `stranded`: it can
 * only be denied here; `gone` with it: its filer no longer serves and no instance serving has its settings; `ended`
 * (not stranded): its filer was an agent's stdio `hldp mcp` that has exited, whose next session runs it.
 */
export type Elsewhere = { text: string; stranded: boolean; gone?: boolean; ended?: boolean };

/**
 * Whether the request was filed by an agent's stdio `hldp mcp`: a process that kept a row in the roll of live
 * instances and serves no URL (`hldp serve` always has one once it serves; a one-shot `hldp call` keeps no row).
 */
export function filedBySession(record: ApprovalRecord): boolean {
  return record.rule.filed_by?.roll === true && record.rule.filed_by.url === null;
}

/**
 * Where this request's call runs, when not at this instance (undefined: here). See `ApprovalDesk.elsewhere`. A request
 * of an agent's stdio `hldp mcp` that has exited is no dead end: that process ends with its agent's session, and the
 * next one its MCP client starts, with the same settings, runs the approved call at its start (its sweep) or when it
 * waits for it. Such a request was refused, 409, its approver told to deny it, though it would run (integrator
 * finding U11-16): it is approved now, and the words say when it runs.
 */
export function whereItRuns(record: ApprovalRecord, here: RunPlace, self: ApprovalFiler, live: LiveInstances, values: boolean): Elsewhere | undefined {
  const difference = placeDifference(record, here, "this instance's", values);
  if (difference === undefined) return undefined;
  const until = `until ${record.expires_at}`;
  if (self.url !== null && record.rule.filed_by?.url === self.url) {
    return {
      stranded: true,
      text: `this gateway's settings changed since request '${record.id}' was filed here${values ? ` (${self.url}, then ${record.rule.filed_by.by})` : ''}: ${difference}. It can run only at a gateway with the settings it was filed under, and this one no longer has them: deny it, and its caller must call the tool again (or approve it at another instance still running with those settings, if one does). Nothing ran; it stays pending ${until}`,
    };
  }
  // the filer restarted with other settings (or stopped), and no instance serving has its settings: approving it here
  // offered a run nothing would act on, and it expired unrun while its approver believed it would run (review userZ6 F10)
  if (live.runsIt(record) === false) {
    if (filedBySession(record)) return { stranded: false, ended: true, text: sessionEndedText(record, difference) };
    // a filer that said it stopped moments ago may be in a rolling restart: the approver is told to wait, not only to
    // deny a request that runs seconds later (review userZ8, M3)
    const left = live.leftAgo(record);
    const restart = left === undefined ? '' : ` If it is being restarted with the settings it had (it stopped ${Math.max(1, Math.round(left / 1000))} s ago), wait until it serves again: approving is offered then, and it runs there.`;
    return {
      stranded: true, gone: true,
      text: `no gateway serving now runs request '${record.id}': ${filerWords(record, values)} no longer serves, and no instance serving on this store has the settings it was filed under (this one does not: ${difference}). Approving it would record a decision nothing acts on, and it would expire unrun: deny it, and its caller must call the tool again (or start a gateway with its settings, then approve it).${restart} Nothing ran; it stays pending ${until}`,
    };
  }
  return {
    stranded: false,
    text: `request '${record.id}' runs at ${filerWords(record, values)}, or at any gateway with its settings, not here: ${difference}. Approving it here records the decision; the call then runs once there, when it next looks (every second while it serves, or when its caller waits for the request), and its receipt answers the caller. If no gateway with its settings runs it before it expires (${record.expires_at}), it expires with nothing run`,
  };
}

// when the next session runs it, in the words each answer shares
function whenItRuns(record: ApprovalRecord): string {
  return `it runs once when '${record.caller}' next starts an hldp mcp with the settings it was filed under (its next agent session, which its MCP client starts as it started the one that exited), at that session's start or when it waits for the request (approval_wait), and its receipt answers the caller. If none does before it expires (${record.expires_at}), it expires with nothing run, and its receipt says so`;
}

/** What an approver reads of a request whose agent's stdio `hldp mcp` has exited: approving it is offered. */
export function sessionEndedText(record: ApprovalRecord, difference: string): string {
  return `request '${record.id}' was filed by '${record.caller}': the agent's hldp mcp that filed it has exited (its session ended), and no instance serving on this store has the settings it was filed under (this one does not: ${difference}). Approving it here records the decision, and nothing runs here: ${whenItRuns(record)}`;
}

/** The answer to an approval recorded for an exited agent session's request (202, nothing ran). */
export function sessionEndedApproved(record: ApprovalRecord, by: string): string {
  return `approved by ${by}; it runs when '${record.caller}' next starts an hldp mcp with the settings it was filed under (its next agent session, which its MCP client starts as it started the one that exited), at that session's start or when it waits for the request (approval_wait), and its receipt answers the caller. Nothing has run yet: the agent's hldp mcp that filed request '${record.id}' has exited (its session ended), and no instance serving on this store has those settings. If no such session starts before ${record.expires_at}, it expires with nothing run, and its receipt says so. GET /v1/approvals/${record.id}?wait=30 waits for the receipt`;
}

/**
 * What the agent presenting its confirmation token at an instance of another place is told when the `hldp mcp` that
 * filed it has exited: to confirm it in its next session, where it runs, the token still good (integrator finding
 * U11-3: it was sent to "the instance that filed it", which had exited).
 */
export function sessionEndedToken(record: ApprovalRecord, difference: string): string {
  return `request '${record.id}' runs where it was filed, not at this instance (${difference}), and the agent's hldp mcp that filed it has exited (its session ended). Nothing ran and nothing was decided; the token is still good until ${record.expires_at}: confirm it with the confirm tool of your next hldp mcp session, started with the settings this one had (as your MCP client starts it), where it runs`;
}
