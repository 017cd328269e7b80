import { describeGate, passesGate, type AccessGate, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { PolicySet, type RuleRef } from './policy-set.js';
import type { Principal } from './principals.js';

/** Who decides an approval request when its rule does not say: a principal with role approver (or admin). */
export const DEFAULT_APPROVERS: AccessGate = Object.freeze({ roles: ['approver' as const] });

/** What the approval policy decides for one call (seed 002): run it, refuse it, or wait for a person. */
export type PolicyDecision =
  | { kind: 'allow'; rule?: RuleRef }
  | { kind: 'deny'; rule?: RuleRef; reason: string }
  | {
      kind: 'approve';
      /** absent: the tool's own `require_confirm` decided */
      rule?: RuleRef;
      reason: string;
      /** the caller may approve its own request */
      selfApproval: boolean;
      approvers: AccessGate;
      /** the human at an MCP client that declares elicitation may decide there */
      elicit: boolean;
      expiresInMs?: number;
    };

/** Why a deny or approve rule took a path its globs do not name. */
const UNJUDGED = "the rule matched because a path could not be judged (it climbs out of the tool's root, is absolute outside it, or the gateway cannot place it), and a deny or approve rule takes every such path";

/**
 * The first approval rule (over every policy in path order) whose tools, callers and param conditions match
 * decides; with none, a tool with `constraints.require_confirm` waits for a confirmation its caller may give
 * itself (today's confirm flow), and any other runs. A broken policy denies. `roots` is where the tool's relative
 * paths land (its root as configured and resolved), so that a glob judges the path the tool will reach; none when
 * the gateway does not know, and then a path it cannot judge matches a deny or approve rule and no allow rule. A
 * shell tool with its own `cwd` opens a relative path there: `cwd` is that folder as the call fills it (relative to
 * the root, or absolute); without it, such a tool's relative paths cannot be judged at all.
 */
export function decidePolicy(index: ToolIndex, tool: ToolDefinition, params: Record<string, unknown>, caller: Principal, roots: readonly string[] = [], cwd?: string): PolicyDecision {
  const set = PolicySet.of(index);
  const broken = set.brokenReason;
  if (broken) return { kind: 'deny', reason: broken };
  // a shell tool with its own cwd opens a relative path there, wherever a param points it: unplaced, none can be judged (review Q, Q9)
  const ownCwd = tool.executor === 'shell' && tool.shell?.cwd !== undefined ? (cwd ?? null) : undefined;
  for (const compiled of set.rulesFor(tool)) {
    if (compiled.callers && !passesGate(compiled.callers, caller)) continue;
    const value = (param: string): unknown => (Object.hasOwn(params, param) ? params[param] : undefined);
    if (!compiled.conditions.every(([param, test]) => test(value(param), roots, ownCwd))) continue;
    const { rule, ref } = compiled;
    // a deny or approve rule takes a path it cannot judge: said, else `no logs` read as the reason /etc was refused (review userZ5, F7)
    const unjudged = compiled.judged !== undefined && !compiled.judged.every(([param, test]) => test(value(param), roots, ownCwd)) ? `; ${UNJUDGED}` : '';
    switch (rule.decision) {
      case 'allow':
        return { kind: 'allow', rule: ref };
      case 'deny':
        return { kind: 'deny', rule: ref, reason: `${rule.reason ?? `the policy denies this call of '${tool.name}'`} (${ref.where})${unjudged}` };
      case 'approve':
        return {
          kind: 'approve', rule: ref,
          reason: `${rule.reason ?? `the policy asks a person to approve this call of '${tool.name}'`} (${ref.where})${unjudged}`,
          selfApproval: rule.self_approval ?? false,
          approvers: rule.approvers ?? DEFAULT_APPROVERS,
          elicit: rule.elicit ?? false,
          ...(rule.expires_in_ms === undefined ? {} : { expiresInMs: rule.expires_in_ms }),
        };
    }
  }
  if (tool.constraints.require_confirm) {
    return { kind: 'approve', reason: `'${tool.name}' requires confirmation (constraints.require_confirm)`, selfApproval: true, approvers: DEFAULT_APPROVERS, elicit: true };
  }
  return { kind: 'allow' };
}

/** What a decider needs to know of a request: who asked, and what its rule lets decide. */
export interface DecisionRights {
  caller: string;
  selfApproval: boolean;
  approvers: AccessGate;
}

/**
 * Why `principal` may not approve or deny a request, or undefined if it may: the caller only where its rule
 * allows self-approval (the agent cannot approve its own request), anyone else only as one of the rule's approvers.
 */
export function deciderProblem(request: DecisionRights, principal: Principal): string | undefined {
  if (principal.name === request.caller) {
    return request.selfApproval ? undefined : `principal '${principal.name}' made this request and its rule does not allow self-approval; another principal who is ${describeGate(request.approvers)} decides it`;
  }
  return passesGate(request.approvers, principal) ? undefined : `principal '${principal.name}' may not decide this request: it is for ${describeGate(request.approvers)}`;
}

/**
 * Why no one but `caller` could decide a request its rule files, if so (undefined: someone else can): the rule forbids
 * self-approval and no other principal there is (`local`, the operator at the CLI, among them) passes its approvers'
 * gate. With no principals configured, `local` files and is refused: the request could only expire (review userV, V3).
 */
export function nobodyElseDecides(rule: { selfApproval: boolean; approvers: AccessGate; elicit: boolean }, caller: string, principals: readonly Principal[], leftOut: ReadonlyArray<Pick<Principal, 'name' | 'roles'>> = []): string | undefined {
  // elicit: the human at the caller's MCP client may decide it there
  if (rule.selfApproval || rule.elicit) return undefined;
  if (principals.some((principal) => principal.name !== caller && passesGate(rule.approvers, principal))) return undefined;
  // a principal the config declares but this command left out for want of its token decides at the gateway, where its
  // token is: "no other principal is configured" sent an operator to change a config that was right (review userZ9, U9-1)
  if (leftOut.some((principal) => principal.name !== caller && passesGate(rule.approvers, principal))) return undefined;
  const others = principals.filter((principal) => principal.name !== caller).map((principal) => principal.name);
  return (
    `its caller '${caller}' may not approve it (its rule does not allow self-approval) and ${others.length ? `no other principal (${others.join(', ')}) is ${describeGate(rule.approvers)}` : 'no other principal is configured'}. ` +
    `Configure a principal who is ${describeGate(rule.approvers)} (principals: in the gateway's config), or set self_approval: true on the rule`
  );
}
