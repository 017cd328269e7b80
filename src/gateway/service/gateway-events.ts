import { toolCount, wasNotStored, type Receipt, type ToolIndex } from '../../core/index.js';
import type { ApprovalRecord, NewEvent } from '../../store/index.js';
import { brokenDefinitions, eventParams, receiptSummary, type EventHub } from '../../events/index.js';
import { redactValue } from '../../executors/index.js';
import type { CallOutcome } from './call-outcome.js';
import type { CallAsked, GatewayObserver } from './gateway.js';

/**
 * The events a call's outcome makes; none for a substituted call (its toolset was enabled: nothing was asked of a
 * person). Params leave without the configured `secrets`, as in receipts, and bounded (`eventParams`): events go to
 * the store, every instance, the event stream and outgoing webhooks.
 */
export function outcomeEvents(outcome: CallOutcome, asked?: CallAsked, secrets: readonly string[] = []): Array<[Parameters<EventHub['publish']>[0], Record<string, unknown>]> {
  // who asked: a principal's stream carries its own calls' events (eventVisibleTo)
  const who = { ...(asked?.caller === undefined ? {} : { caller: asked.caller }), ...(asked?.session === undefined ? {} : { session: asked.session }) };
  switch (outcome.kind) {
    case 'receipt': {
      const { receipt } = outcome;
      // a receipt the store could not take is in no one's history: announcing it would point at nothing
      if (wasNotStored(receipt)) return [];
      // approval.resolved is not made here: the desk appends it with the receipt's link to its request (approvalResolved)
      return [['receipt.stored', receiptSummary(receipt)]];
    }
    case 'confirmation_required': {
      const { confirmation } = outcome;
      // the same call repeated while its request waits filed nothing: approvers were told of it once (review userZ9, U9-8)
      if (confirmation.already_pending) return [];
      return [['approval.requested', {
        approval: confirmation.id, kind: confirmation.token ? 'confirmation' : 'approval', tool: confirmation.tool, ...eventParams(redactValue(confirmation.params, secrets)),
        commit: confirmation.commit, expires_at: confirmation.expires_at, reason: confirmation.reason, approvers: confirmation.approvers, ...who,
      }]];
    }
    case 'substituted':
      return [];
    case 'not_found':
    case 'broken':
    case 'confirmation_invalid':
    case 'store_unavailable':
    case 'too_many_pending':
    case 'too_many_calls':
      return [['call.rejected', { kind: outcome.kind, code: outcome.code, tool: 'tool' in outcome ? outcome.tool : (asked?.tool ?? null), error: outcome.error, ...who }]];
    case 'invalid_params':
    case 'refused':
    case 'timeout_not_allowed':
      return [['call.rejected', { kind: outcome.kind, code: outcome.code, tool: outcome.tool, error: outcome.error, ...who }]];
  }
}

/**
 * The approval.resolved event of a decided request's receipt (the call's, or the one that says it never ran), with who
 * decided and why. The desk appends it in the transaction that makes the receipt the request's outcome, so once: a
 * second receipt made for it (a run whose lease lapsed, and the one closing it as interrupted) resolves nothing, and a
 * waiter answered finds it in the log. `ok` and `code` say what the released call came to: "approved" alone read as
 * success for a write that failed (review userV, V4).
 */
export function approvalResolved(receipt: Receipt, request: Pick<ApprovalRecord, 'rule'>): NewEvent {
  const approval = receipt.approval!;
  const data = {
    // the kind its approval.requested said (a token, hence a confirmation, where the caller may approve its own): one
    // that expired, was cancelled or that an approver decided read `approval` from how it ended (fixu30b's leftover)
    approval: approval.id, kind: request.rule.self_approval ? 'confirmation' : 'approval', decision: approval.status, tool: receipt.tool,
    receipt: receipt.id, ok: receipt.ok, code: receipt.code, by: approval.decided_by, reason: approval.reason, via: approval.via,
    ...(receipt.caller ? { caller: receipt.caller } : {}), ...(receipt.session ? { session: receipt.session } : {}),
  };
  return { type: 'approval.resolved', at_ms: Date.now(), data: JSON.stringify(data) };
}

/** The observer that turns what the gateway does into events: calls, rejections, confirmations, scans, broken definitions. */
export function eventObserver(hub: EventHub, initial: ToolIndex, secrets: () => readonly string[], instance?: string): GatewayObserver {
  let brokenFiles = JSON.stringify(initial.errors.map((error) => [error.file, error.line, error.column, error.message]));
  let failing = false;
  return {
    called(outcome, _seconds, asked) {
      for (const [type, data] of outcomeEvents(outcome, asked, secrets())) hub.publish(type, data);
    },
    scanned(result) {
      if ('error' in result) {
        failing = true;
        hub.publish('scan.failed', { error: result.error.message });
        return;
      }
      const { index } = result;
      // a poll that finds the same commit is not news, unless it ends a run of failures
      const news = result.changed || failing;
      failing = false;
      // which instance scanned (each instance on a store scans, so a push is listed once by each) and in how many files
      // its errors are: "8" beside "1 definition failed to load" read as 8 broken (review userZ6 F5)
      if (news) hub.publish('scan.completed', { previous: result.previous, commit: result.commit, changed: result.changed, tools: toolCount(index), toolsets: index.toolsets.length, skills: index.skills.length, errors: index.errors.length, broken_files: new Set(index.errors.map((error) => error.file)).size, warnings: index.warnings.length, ...(instance ? { instance } : {}) });
      const broken = JSON.stringify(index.errors.map((error) => [error.file, error.line, error.column, error.message]));
      // announced when the set of problems changes, not on every poll that finds the same ones
      if (broken !== brokenFiles && index.errors.length > 0) hub.publish('definitions.broken', brokenDefinitions(index));
      brokenFiles = broken;
    },
  };
}
