import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccessGate, ApprovalRule, PolicyDefinition, Role, ToolIndex } from '../../src/core/index.js';
import { decidePolicy, outrightDeny, type Principal } from '../../src/policy/index.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// Review userZ4, F8: "denied outright to this caller" makes a tool forbidden for it, so it must never be said of a tool
// some call of which the caller could still run (sound), and must be said whenever the first rule applying to the
// caller is a deny with callers and no rule before it lets anything through (complete in that case). Checked against
// decidePolicy, the function that decides each call, over random rule lists and params.

const TOOL = makeToolDefinition({ name: 'alpha' });
const CALLER: Principal = { name: 'bot', roles: new Set<Role>(['agent']) };
// the values a condition tests; 9 matches none of them
const VALUES = [1, 2, 3];
const PARAMS = [{}, ...[...VALUES, 9].map((x) => ({ x }))];

const ruleArbitrary = fc.record({
  decision: fc.constantFrom('allow' as const, 'approve' as const, 'deny' as const),
  // none: every caller; the caller by name or role; another principal
  callers: fc.constantFrom<AccessGate | undefined>(undefined, { principals: ['bot'] }, { roles: ['agent'] }, { principals: ['lead'] }),
  equals: fc.option(fc.constantFrom(...VALUES), { nil: undefined }),
});

function indexOf(rules: ReadonlyArray<{ decision: ApprovalRule['decision']; callers: ApprovalRule['callers']; equals: number | undefined }>): ToolIndex {
  const approval: ApprovalRule[] = rules.map((rule, at) => ({
    tools: ['alpha'], decision: rule.decision, at: { line: at + 4, column: 5 },
    ...(rule.callers ? { callers: rule.callers } : {}),
    ...(rule.equals === undefined ? {} : { when: { x: { equals: rule.equals } } }),
  }));
  const policy: PolicyDefinition = { name: 'p', access: [], approval, author: 't', why: 't', source: { path: 'policies/p.hdlp', oid: 'p' } };
  return { source: 'test', commit: 'c', tools: [TOOL], toolsets: [], skills: [], policies: [policy], errors: [], warnings: [], scanned_at: '' };
}

const applies = (callers: ApprovalRule['callers']): boolean => callers === undefined || (callers.principals?.includes('bot') ?? false) || (callers.roles?.includes('agent') ?? false);

describe('outrightDeny', () => {
  it('is said only of a tool every call of which the caller is denied, and of every such tool whose first rule for it settles it', () => {
    fc.assert(
      fc.property(fc.array(ruleArbitrary, { maxLength: 6 }), (rules) => {
        const index = indexOf(rules);
        const denied = outrightDeny(index, TOOL, CALLER);
        const decisions = PARAMS.map((params) => decidePolicy(index, TOOL, params, CALLER));
        if (denied) {
          // sound: whatever the params, the call is denied
          for (const decision of decisions) expect(decision.kind).toBe('deny');
          expect(denied.callers).toBeDefined();
          expect(denied.conditions).toHaveLength(0);
        }
        // complete: the first rule applying to the caller without conditions is a deny with callers, and every rule
        // before it that applies to the caller is a conditional deny
        const first = rules.findIndex((rule) => applies(rule.callers) && rule.equals === undefined);
        const settles = first >= 0 && rules[first]!.decision === 'deny' && rules[first]!.callers !== undefined && rules.slice(0, first).every((rule) => !applies(rule.callers) || rule.decision === 'deny');
        expect(denied !== undefined).toBe(settles);
        if (settles) expect(denied!.ref.where).toBe(`policies/p.hdlp:${first + 4}:5`);
      }),
      { numRuns: runs(400) },
    );
  });
});
