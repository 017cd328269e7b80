import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { IndexNamedLines, namedLines } from '../../src/sessions/named-lines.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// an index: tools in order, each in one of a few groups (or none), some needing confirmation
const index = fc
  .array(fc.record({ group: fc.option(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'), { nil: undefined }), confirm: fc.boolean() }), { maxLength: 40 })
  .map((specs) =>
    specs.map((spec, position): ToolDefinition =>
      makeToolDefinition({
        name: `tool-${String(position).padStart(3, '0')}`,
        intent: `does job ${position}\nsecond line`,
        ...(spec.group === undefined ? {} : { group: spec.group }),
        ...(spec.confirm ? { constraints: { timeout_ms: 1000, max_output_bytes: 1000, require_confirm: true } } : {}),
      }),
    ),
  );

describe("a block's named lines worked out from the whole index's", () => {
  it('are exactly the lines of the tools left, groups folded and unfolded as they would be from scratch', () => {
    fc.assert(
      fc.property(index, fc.array(fc.nat({ max: 40 }), { maxLength: 40 }), fc.boolean(), (tools, picks, described) => {
        const excluded = [...new Set(picks.filter((pick) => pick < tools.length))].sort((a, b) => a - b);
        const descriptions: Record<string, string> = described ? { alpha: 'the first letters', gamma: 'more\nletters' } : {};
        const left = tools.filter((_tool, at) => !excluded.includes(at));
        expect(new IndexNamedLines(tools, descriptions).linesWithout(excluded)).toEqual(namedLines(left, descriptions));
      }),
      { numRuns: 300 },
    );
  });
});
