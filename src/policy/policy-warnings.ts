import { describeGate, nearWord, passesGate, type ApprovalRule, type Diagnostic, type PolicyDefinition, type Role, type ToolIndex } from '../core/index.js';
import { DEFAULT_APPROVERS } from './approval-rules.js';
import { PolicySet } from './policy-set.js';
import { LOCAL_PRINCIPAL } from './principals.js';

// tools named in one warning; the rest are counted
const NAMED_TOOLS = 5;

/**
 * What `hldp validate` warns of in valid policies: rules that do what their author may not mean, though the gateway
 * reads them as written (review K, S1 and S5). An `allow` rule reached by a `require_confirm` tool turns its
 * confirmation off; `elicit: true` beside `self_approval: false` lets the human at the caller's own MCP client — for
 * an agent that drives its client, the caller — approve.
 */
export function policyWarnings(index: ToolIndex): Diagnostic[] {
  const policies = index.policies ?? [];
  if (policies.length === 0) return [];
  return [...allowsOverConfirm(index, policies), ...elicitAsCaller(policies)];
}

function allowsOverConfirm(index: ToolIndex, policies: readonly PolicyDefinition[]): Diagnostic[] {
  const set = PolicySet.of(index);
  const skipped = new Map<ApprovalRule, string[]>();
  for (const tool of index.tools) {
    if (!tool.constraints.require_confirm) continue;
    // first match wins: past a rule that matches every call of the tool, no later rule is reached
    for (const { rule } of set.rulesFor(tool)) {
      if (rule.decision === 'allow') skipped.set(rule, [...(skipped.get(rule) ?? []), tool.name]);
      if (!rule.callers && Object.keys(rule.when ?? {}).length === 0) break;
    }
  }
  const warnings: Diagnostic[] = [];
  for (const policy of policies) {
    for (const rule of policy.approval) {
      const tools = skipped.get(rule);
      if (!tools) continue;
      const named = tools.slice(0, NAMED_TOOLS).map((name) => `'${name}'`).join(', ') + (tools.length > NAMED_TOOLS ? ` and ${tools.length - NAMED_TOOLS} more` : '');
      const them = tools.length > 1 ? 'them' : 'it';
      const unconfirmed = rule.callers || rule.when ? `the calls it matches run ${them} unconfirmed` : `every call of ${them} runs unconfirmed`;
      warnings.push({
        file: policy.source.path, line: rule.at.line, column: rule.at.column, severity: 'warning', code: 'ALLOW_SKIPS_CONFIRMATION',
        message:
          `this allow rule covers ${named}, which ${tools.length > 1 ? 'declare' : 'declares'} require_confirm: true: a matching rule is decided before a tool's require_confirm, so ${unconfirmed}; ` +
          'to keep the confirmation, leave such tools out of the rule or decide approve with self_approval: true',
      });
    }
  }
  return warnings;
}

function elicitAsCaller(policies: readonly PolicyDefinition[]): Diagnostic[] {
  return policies.flatMap((policy) =>
    policy.approval
      .filter((rule) => rule.decision === 'approve' && rule.elicit === true && rule.self_approval !== true)
      .map((rule): Diagnostic => ({
        file: policy.source.path, line: rule.at.line, column: rule.at.column, severity: 'warning', code: 'ELICIT_AS_CALLER',
        message:
          `elicit: true lets the human at the calling MCP client approve, while self_approval is ${rule.self_approval === false ? 'false' : 'not given (false)'}: ` +
          "an agent that drives its own MCP client answers the elicitation itself, which is self-approval; drop elicit so that an approver decides, or say self_approval: true if the caller may",
      })),
  );
}

/**
 * Approve rules no configured principal may decide (code NO_APPROVER), given the deployment's principals (`local`
 * not among them). Where the gate has roles, the operator at the CLI (`local`, every role) can decide their
 * requests, never one it made itself — with no principals configured, every request is local's, so each could only
 * expire (review userV, V3). A gate of names alone admits no `local`: such a rule's requests can only expire, and a
 * name no principal has is said, with the configured one it likely meant (it promised `local` would do: review
 * userZ4, F14). Said where the config is known: `hldp validate --config` and at `hldp serve`'s start.
 */
export function undecidableApprovals(index: ToolIndex, principals: ReadonlyArray<{ name: string; roles: readonly Role[] }>): Diagnostic[] {
  const names = principals.map((principal) => principal.name);
  return [...unknownPrincipals(index, names), ...(index.policies ?? []).flatMap((policy) =>
    policy.approval
      .filter((rule) => rule.decision === 'approve' && rule.self_approval !== true && rule.elicit !== true)
      .filter((rule) => !principals.some((principal) => passesGate(rule.approvers ?? DEFAULT_APPROVERS, { name: principal.name, roles: new Set(principal.roles) })))
      .map((rule): Diagnostic => {
        const approvers = rule.approvers ?? DEFAULT_APPROVERS;
        const gate = describeGate(approvers);
        const local = passesGate(approvers, LOCAL_PRINCIPAL);
        const who = local
          ? `only 'local', the operator at the CLI, can decide this rule's requests, and not the ones it makes itself${principals.length === 0 ? " (with no principals configured every request is local's, so each can only expire)" : ''}`
          : `no one can decide this rule's requests, not even 'local', the operator at the CLI (a gate of principal names admits only the principals it names), so each can only expire`;
        return {
          file: policy.source.path, line: rule.at.line, column: rule.at.column, severity: 'warning', code: 'NO_APPROVER',
          message: `no configured principal is ${gate}, and self_approval is not true: ${who}; ${unknownNames(approvers.principals ?? [], names)}configure a principal who is ${gate} (principals: in the gateway's config), or set self_approval: true on the rule`,
        };
      }),
  )];
}

/**
 * The names in an approval rule's `callers` and an access rule's `principals` that no configured principal has
 * (code UNKNOWN_PRINCIPAL, review userZ9, U9-11): `callers: {principals: [agnet1]}` made a deny deny no one, and
 * `principals: [leda]` shut out the principal it was written for, without a word. A warning, not a refusal: the
 * principals are the deployment's, not the registry's — one registry serves gateways of other principals, and the
 * same policy is right at one of them — so it is said where the config is known, with the name it likely meant.
 */
function unknownPrincipals(index: ToolIndex, configured: readonly string[]): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  const check = (policy: PolicyDefinition, at: { line: number; column: number }, listed: readonly string[] | undefined, where: string, effect: string): void => {
    const said = unknownNames(listed ?? [], configured, where);
    if (said) warnings.push({ file: policy.source.path, line: at.line, column: at.column, severity: 'warning', code: 'UNKNOWN_PRINCIPAL', message: `${said}${effect}` });
  };
  for (const policy of index.policies ?? []) {
    for (const rule of policy.access) check(policy, rule.at, rule.principals, 'principals', 'add such a principal to the gateway\'s config: as it is, this access rule lets no one of that name through, and refuses the principal it was meant for');
    for (const rule of policy.approval) {
      const effect = `add such a principal to the gateway's config: as it is, this ${rule.decision} rule matches no call by that name, and leaves them to the rules after it`;
      check(policy, rule.at, rule.callers?.principals, 'callers', effect);
    }
  }
  return warnings;
}

/** The gate's names no principal has, each with the configured name it likely meant: "'alcie' is no configured principal (did you mean 'alice'?); ". */
function unknownNames(gateNames: readonly string[], configured: readonly string[], where = 'approvers'): string {
  const unknown = gateNames.filter((name) => name !== LOCAL_PRINCIPAL.name && !configured.includes(name));
  if (unknown.length === 0) return '';
  const said = unknown.map((name) => {
    const near = nearWord(name, configured);
    return `'${name}'${near ? ` (did you mean '${near}'?)` : ''}`;
  });
  const configuredSaid = configured.length === 0 ? 'none is configured' : `the configured ones are ${configured.join(', ')}`;
  return `${said.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} no configured principal's name (${configuredSaid}): correct the name in ${where}, or `;
}
