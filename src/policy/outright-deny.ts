import { passesGate, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { PolicySet, type CompiledRule } from './policy-set.js';
import type { Principal } from './principals.js';

/**
 * The approval rule that denies `caller` every call of `tool`, whatever its params, if one does: the first rule (in
 * `decidePolicy`'s order) that applies to the caller without param conditions is a `deny` that names the caller
 * (`callers:`), and no rule before it with conditions could let a call through (an `allow` or `approve`). Such a tool
 * is of no use to the caller: the visibility function makes it `forbidden` for it, not listed (review userZ4, F8).
 * A deny without `callers:` is the registry's word on the tool for everyone, and stays a `DENIED` receipt; a deny with
 * `when:` depends on the params, and the tool stays visible.
 */
export function outrightDeny(index: ToolIndex, tool: ToolDefinition, caller: Principal): CompiledRule | undefined {
  const set = PolicySet.of(index);
  // asked of every tool a principal may use: a registry without approval rules looks at none
  if (!set.hasApprovalRules) return undefined;
  return firstOutrightDeny(set.rulesFor(tool), caller);
}

/** `outrightDeny` over a tool's rules, in order. */
export function firstOutrightDeny(rules: readonly CompiledRule[], caller: Principal): CompiledRule | undefined {
  for (const compiled of rules) {
    if (compiled.callers && !passesGate(compiled.callers, caller)) continue;
    if (compiled.conditions.length > 0) {
      // a conditional deny before it denies some calls, which the later one would deny too; anything else lets some through
      if (compiled.decision === 'deny') continue;
      return undefined;
    }
    return compiled.decision === 'deny' && compiled.callers !== undefined ? compiled : undefined;
  }
  return undefined;
}
