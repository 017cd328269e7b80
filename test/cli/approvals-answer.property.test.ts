// Review Z15, I-1: `hldp approvals --url` prints what a server at --url answered. Whatever JSON it sends, either the
// shape check names what is amiss, or the printers render it without throwing (they threw the engine's words:
// `Cannot read properties of undefined (reading 'reason')`, `text2.matchAll is not a function`).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalsAnswerProblem } from '../../src/cli/approvals-answer.js';
import { detail, summary } from '../../src/cli/approval-lines.js';
import { receiptDetail } from '../../src/cli/format-outcome.js';
import { runs } from '../helpers/property-runs.js';

// each field the printers read: mostly a value of its kind (so that whole answers pass the check often enough to be
// printed), else null, absent or any JSON at all
const anyOf = (good: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: good, weight: 40 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 });
const text = fc.string({ maxLength: 12 });
const rule = fc.record({ reason: anyOf(text), place: anyOf(fc.record({ workspace: anyOf(text), sandbox: anyOf(text), run_as: anyOf(text) })), filed_by: anyOf(fc.record({ by: anyOf(text), url: anyOf(text) })) });
const record = fc.record({
  id: anyOf(text), status: anyOf(fc.constantFrom('pending', 'approved', 'denied', 'expired', 'cancelled')), tool: anyOf(text), caller: anyOf(text),
  executor: anyOf(text), method: anyOf(text), commit: anyOf(text), created_at: anyOf(text), expires_at: anyOf(text), decided_at: anyOf(text),
  decided_by: anyOf(text), decided_via: anyOf(text), decision_reason: anyOf(text), session: anyOf(text), receipt_id: anyOf(text), outdated: anyOf(text),
  params: fc.jsonValue({ maxDepth: 2 }), rule: anyOf(rule), run: anyOf(fc.record({ by: anyOf(text), lease_until: anyOf(text) })),
});
const receipt = fc.record({ id: anyOf(text), ok: anyOf(fc.boolean()), code: anyOf(text), output: anyOf(text), error: anyOf(text), stderr: anyOf(text), source: anyOf(fc.record({ repository: anyOf(text) })), approval: fc.jsonValue({ maxDepth: 2 }), params: fc.jsonValue({ maxDepth: 1 }) });

describe('approvalsAnswerProblem', () => {
  it('passes only a list answer whose every request the printers render', () => {
    let printed = 0;
    fc.assert(
      fc.property(anyOf(fc.record({ approvals: anyOf(fc.array(anyOf(record), { maxLength: 3 })) })), (body) => {
        if (approvalsAnswerProblem(body, 'list') !== undefined) return;
        printed += 1;
        for (const each of (body as { approvals: never[] }).approvals) expect(() => summary(each)).not.toThrow();
      }),
      { numRuns: runs(500) },
    );
    // the check is not merely refusing everything
    expect(printed).toBeGreaterThan(0);
  });

  it('passes only a one-request answer that the printers render: the request, its receipt, the lapsed lease', () => {
    let printed = 0;
    fc.assert(
      fc.property(fc.record({ approval: anyOf(record), receipt: anyOf(receipt), message: anyOf(text), lease_lapsed: anyOf(fc.record({ error: anyOf(text) })) }), (body) => {
        if (approvalsAnswerProblem(body, 'approve') !== undefined) return;
        printed += 1;
        expect(() => detail(body.approval as never)).not.toThrow();
        if (body.receipt) expect(() => receiptDetail(body.receipt as never)).not.toThrow();
      }),
      { numRuns: runs(500) },
    );
    expect(printed).toBeGreaterThan(0);
  });

  it('names the first field amiss', () => {
    expect(approvalsAnswerProblem({ approvals: [{ id: 'x', status: 5 }] }, 'list')).toBe('approvals[0].status is not a string');
    expect(approvalsAnswerProblem(5, 'show')).toBe('the answer is not a JSON object');
  });
});
