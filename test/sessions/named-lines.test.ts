import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { fitToBudget } from '../../src/sessions/budget.js';
import { IndexNamedLines, namedLines } from '../../src/sessions/named-lines.js';
import { oneLine, toolMarkers } from '../../src/sessions/signatures.js';
import { runs } from '../helpers/property-runs.js';
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
      { numRuns: runs(300) },
    );
  });

  it('hold no description: a block fitted from them reads only those of the lines it shows, and is the same block', () => {
    fc.assert(
      fc.property(index, fc.array(fc.nat({ max: 40 }), { maxLength: 10 }), fc.integer({ min: 0, max: 1200 }), (tools, picks, budget) => {
        const excluded = [...new Set(picks.filter((pick) => pick < tools.length))].sort((a, b) => a - b);
        const read: number[] = [];
        // issue #18: at 100,000 tools the intents the lines held were 18.6 MB, for a block that shows ~1,100 of them
        const lines = new IndexNamedLines(tools, { beta: 'second letters' }, (at) => {
          read.push(at);
          return oneLine(tools[at]!.intent);
        }).linesWithout(excluded);
        // a folded group's line is made with its own description; a tool's line holds none of its own
        expect(lines.filter((line) => Object.hasOwn(line, 'description')).every((line) => line.name.includes('(group of'))).toBe(true);
        const fitted = fitToBudget([{ header: 'Tools:', lines, dropRank: 0 }], budget);
        const whole = fitToBudget([{ header: 'Tools:', lines: namedLines(tools.filter((_tool, at) => !excluded.includes(at)), { beta: 'second letters' }), dropRank: 0 }], budget);
        expect({ ...fitted, dropped: fitted.dropped.map((line) => line.name) }).toEqual({ ...whole, dropped: whole.dropped.map((line) => line.name) });
        expect(read.length).toBeLessThanOrEqual(fitted.text.split('\n').length - 1);
      }),
      { numRuns: runs(300) },
    );
  });

  // review userV, V9: the markers a caller's approval rules give some tools replace theirs, in tool and folded group lines
  const MARKERS = [['[needs approval]'], ['[may need approval]'], ['[needs confirmation or approval]'], []] as const;
  const marked = fc.array(fc.tuple(fc.nat({ max: 40 }), fc.nat({ max: MARKERS.length - 1 })), { maxLength: 40 });

  it('with marks, are the lines of the tools left as namedLines gives them with those markers', () => {
    fc.assert(
      fc.property(index, fc.array(fc.nat({ max: 40 }), { maxLength: 40 }), marked, fc.integer({ min: 0, max: 1200 }), (tools, picks, chosen, budget) => {
        const excluded = [...new Set(picks.filter((pick) => pick < tools.length))].sort((a, b) => a - b);
        const marks = new Map(chosen.filter(([at]) => at < tools.length).map(([at, which]) => [at, MARKERS[which]!] as const));
        const position = new Map(tools.map((tool, at) => [tool, at]));
        const markersOf = (tool: ToolDefinition): readonly string[] => marks.get(position.get(tool)!) ?? toolMarkers(tool);
        const left = tools.filter((_tool, at) => !excluded.includes(at));
        const expected = namedLines(left, { beta: 'second letters' }, markersOf);
        expect(new IndexNamedLines(tools, { beta: 'second letters' }).linesWithout(excluded, marks)).toEqual(expected);
        // and from lines that read their descriptions when shown, the same block
        const lazy = new IndexNamedLines(tools, { beta: 'second letters' }, (at) => oneLine(tools[at]!.intent)).linesWithout(excluded, marks);
        const fitted = fitToBudget([{ header: 'Tools:', lines: lazy, dropRank: 0 }], budget);
        const whole = fitToBudget([{ header: 'Tools:', lines: expected, dropRank: 0 }], budget);
        expect({ ...fitted, dropped: fitted.dropped.map((line) => line.name) }).toEqual({ ...whole, dropped: whole.dropped.map((line) => line.name) });
      }),
      { numRuns: runs(300) },
    );
  });
});
