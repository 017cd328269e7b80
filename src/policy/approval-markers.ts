import { passesGate, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { PolicySet } from './policy-set.js';
import type { Principal } from './principals.js';

type Need = 'confirmation' | 'approval';

/**
 * The mode marker an agent is shown for `tool` (the prompt block, a toolset's tool lines): how the approval rules in
 * force for `caller` will decide its calls, in the caller's terms only — `[needs approval]` (a person decides),
 * `[needs confirmation]` (the caller confirms with a token), `[may need …]` where a rule's param conditions decide —
 * never which rule, nor anything of the rules for other callers. Undefined when no rule names the tool: its own
 * `require_confirm` decides, as the default marker says. The block marked `require_confirm` alone, and an agent was
 * primed for a token flow it would not get, and not told of the approval it would (review userV, V9). Without a
 * caller, for any caller (`hldp list`'s CONFIRM column): a rule for some callers only is one that may decide, as a
 * rule with param conditions is.
 */
export function approvalMarkers(index: ToolIndex, tool: ToolDefinition, caller: Principal | undefined): readonly string[] | undefined {
  const need = approvalNeed(index, tool, caller);
  if (!need) return undefined;
  if (need.kinds.size === 0) return [];
  const what = need.kinds.size === 2 ? 'confirmation or approval' : [...need.kinds][0]!;
  return [need.sure ? `[needs ${what}]` : `[may need ${what}]`];
}

/**
 * What a person does before `tool` runs, as `approvalMarkers` says it: a confirmation by the caller, an approval, both
 * (each where its rule decides), none; `sure` when every call needs it. Undefined when no approval rule names the tool.
 */
export function approvalNeed(index: ToolIndex, tool: ToolDefinition, caller: Principal | undefined): { kinds: ReadonlySet<Need>; sure: boolean } | undefined {
  const set = PolicySet.of(index);
  // a broken policy refuses every call: the tool is forbidden, and shown nowhere
  // asked of every tool a principal may use, once per index: a registry without approval rules remembers nothing per tool
  if (set.brokenReason || !set.hasApprovalRules) return undefined;
  const rules = set.rulesFor(tool);
  if (rules.length === 0) return undefined;
  // what the rules with param conditions before it decide: `none` for allow and deny
  const conditional = new Set<Need | 'none'>();
  // the first rule without conditions that applies to the caller settles every call that reaches it (decidePolicy's order)
  let settled = false;
  let needs: Need | undefined;
  for (const compiled of rules) {
    if (compiled.callers && caller && !passesGate(compiled.callers, caller)) continue;
    const need: Need | undefined = compiled.decision === 'approve' ? (compiled.rule.self_approval ? 'confirmation' : 'approval') : undefined;
    if (compiled.conditions.length > 0 || (compiled.callers && !caller)) {
      conditional.add(need ?? 'none');
      continue;
    }
    settled = true;
    needs = need;
    break;
  }
  if (!settled) needs = tool.constraints.require_confirm ? 'confirmation' : undefined;
  const kinds = new Set<Need>([...(needs ? [needs] : []), ...[...conditional].filter((kind): kind is Need => kind !== 'none')]);
  // sure only when every call needs one: none reaches a rule that lets it run (or refuses it) without a person
  return { kinds, sure: needs !== undefined && !conditional.has('none') };
}
