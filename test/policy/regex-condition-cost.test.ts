import { describe, expect, it } from 'vitest';
import { compileCondition } from '../../src/policy/param-conditions.js';

// Review X, X1: a policy's `regex` condition runs on RE2 on every call's params, in time linear in the text but times
// the program's size (`a[ab]{999}c`: ~1,000 steps a character); a 1 MB value held the gateway ~20 s on the old code.
// Past the params' work budget a value cannot be judged: it matches a deny/approve rule, and not an allow rule.
describe('a regex condition on a value too costly to match', () => {
  const hostile = `c${'a'.repeat(1_000_000)}`;

  it('matches a broad (deny/approve) rule, the stricter reading', () => {
    expect(compileCondition({ regex: 'a[ab]{999}c' }, 'broad')(hostile)).toBe(true);
    expect(compileCondition({ regex: 'a[ab]{999}c' }, 'broad')(['x', hostile])).toBe(true);
  });

  it('does not match a strict (allow) rule', () => {
    expect(compileCondition({ regex: 'a[ab]{999}c' }, 'strict')(hostile)).toBe(false);
  });

  it('still judges a short value by the pattern', () => {
    expect(compileCondition({ regex: 'a[ab]{3}c' }, 'broad')('xxabbac')).toBe(true);
    expect(compileCondition({ regex: 'a[ab]{3}c' }, 'strict')('xxabbc')).toBe(false);
  });
});
