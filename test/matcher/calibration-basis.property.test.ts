import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runToEnd, type ToolDefinition, type ToolSequence } from '../../src/core/index.js';
import { calibrationBasisSteps, type CalibrationBasis } from '../../src/matcher/calibration-basis.js';
import { calibrate } from '../../src/matcher/calibration.js';
import { FITTED_DECISION, FITTED_RANKING } from '../../src/matcher/index.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// Issue #18: each rescan's calibration read every tool to count its examples and aliases (at 100,000 tools served from
// the scan cache, every definition made: ~1-2 s of CPU). A successor's basis takes the unchanged tools' numbers and
// sampled texts over from its predecessor's; its cut must be the very cut a basis made afresh gives.

type Origin = { base: object; lines: Int32Array; swapped: Map<number, ToolDefinition> };
const newOrigin = (length: number): Origin => ({ base: {}, lines: Int32Array.from({ length }, (_, at) => at), swapped: new Map() });

/** Tools as an index served from one scan cache (`origin`) gives them, counting the tools read. */
function served(tools: readonly ToolDefinition[], origin?: Origin): { sequence: ToolSequence; reads: () => number } {
  let reads = 0;
  const read = (position: number): ToolDefinition | undefined => {
    reads += 1;
    return tools[position];
  };
  return { sequence: { length: tools.length, at: read, peek: read, ...(origin ? { origin } : {}) }, reads: () => reads };
}

const words = ['ledger', 'invoice', 'weather', 'tokyo', 'commit', 'branch', 'render', 'chart', 'email', 'draft', 'paris', 'sensor', 'reading', 'the', 'for', 'show', 'send'];
const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }).map((list) => list.join(' '));
const tool = fc.record({ intent: text, examples: fc.array(text, { maxLength: 3 }), aliases: fc.array(text, { maxLength: 2 }) });
const change = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), tool }),
  fc.record({ kind: fc.constant('add' as const), tool }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
);

const named = (position: number, fields: { intent: string; examples: string[]; aliases: string[] }, generation: number): ToolDefinition =>
  makeToolDefinition({ name: `tool-${String(position).padStart(3, '0')}`, ...fields, why: `generation ${generation}` });

function numbers(basis: CalibrationBasis): object {
  return { texts: [...basis.texts], chinese: [...basis.chinese], total: basis.total, chineseTools: basis.chineseTools };
}

describe('calibrationBasisSteps', () => {
  describe('when a rescan edits, adds or removes tools, one change at a time', () => {
    it('reads only the edited tool, and the cut is the one a basis made afresh gives, and a fresh search index', () => {
      fc.assert(
        fc.property(fc.array(tool, { minLength: 4, maxLength: 30 }), fc.array(change, { minLength: 1, maxLength: 6 }), (initial, changes) => {
          let tools = initial.map((fields, position) => named(position, fields, 0));
          let origin: Origin = newOrigin(tools.length);
          let search: SearchIndex = buildSearchIndex(served(tools, origin).sequence);
          let basis = runToEnd(calibrationBasisSteps(served(tools, origin).sequence));
          changes.forEach((step, generation) => {
            if (step.kind === 'edit') {
              const at = step.at % tools.length;
              tools = tools.with(at, named(at, step.tool, generation + 1));
              // the same cache file, the edited tool swapped in: the others are told unchanged by position
              origin = { base: origin.base, lines: origin.lines, swapped: new Map(origin.swapped).set(at, tools[at]!) };
            } else {
              if (step.kind === 'add') tools = [...tools, named(tools.length, step.tool, generation + 1)];
              else if (tools.length > 1) tools = tools.toSpliced(step.at % tools.length, 1);
              // any other change: every entry made again, from a new cache file
              origin = newOrigin(tools.length);
            }
            const next = served(tools, origin);
            const incremental = runToEnd(calibrationBasisSteps(next.sequence, basis));
            if (step.kind === 'edit') expect(next.reads()).toBe(1);
            const fresh = runToEnd(calibrationBasisSteps(served(tools, origin).sequence));
            expect(numbers(incremental)).toEqual(numbers(fresh));
            search = updateSearchIndex(search, next.sequence);
            const cut = calibrate(search, FITTED_RANKING, FITTED_DECISION, incremental);
            expect(cut).toEqual(calibrate(search, FITTED_RANKING, FITTED_DECISION, fresh));
            expect(cut).toEqual(calibrate(buildSearchIndex(tools), FITTED_RANKING, FITTED_DECISION));
            basis = incremental;
          });
        }),
        { numRuns: runs(40) },
      );
    });
  });

  describe('when the sample falls on tools a rescan did not change', () => {
    it('reads none of them again: their texts, and the records of their tools without them, are taken over', () => {
      const tools = Array.from({ length: 200 }, (_, at) =>
        makeToolDefinition({ name: `tool-${String(at).padStart(3, '0')}`, intent: `handles ${words[at % words.length]} job ${at}`, examples: [`show the ${words[(at * 7) % words.length]} of client${at}`], aliases: [`tool ${at} alias`] }),
      );
      const origin: Origin = newOrigin(tools.length);
      const before = served(tools, origin);
      const search = buildSearchIndex(before.sequence);
      const basis = runToEnd(calibrationBasisSteps(before.sequence));
      const first = calibrate(search, FITTED_RANKING, FITTED_DECISION, basis);
      expect(first.probes).toBeGreaterThan(0);

      const edited = tools.with(5, makeToolDefinition({ ...tools[5]!, intent: 'handles something else' }));
      const after = served(edited, { base: origin.base, lines: origin.lines, swapped: new Map([[5, edited[5]!]]) });
      const updated = updateSearchIndex(search, after.sequence);
      const readBefore = after.reads();
      const next = runToEnd(calibrationBasisSteps(after.sequence, basis));
      const cut = calibrate(updated, FITTED_RANKING, FITTED_DECISION, next);
      // the edited tool, counted; it holds no sampled text, so nothing else (a basis made afresh: all 200, then the sample's)
      expect(after.reads() - readBefore).toBe(1);
      expect(cut).toEqual(calibrate(buildSearchIndex(edited), FITTED_RANKING, FITTED_DECISION));
    });
  });
});
