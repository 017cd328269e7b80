import { describe, expect, it } from 'vitest';
import { toolsOf } from '../../src/core/index.js';
import { calibrate, calibrationSteps, hasChineseProbesSteps } from '../../src/matcher/calibration.js';
import { FITTED_DECISION, FITTED_RANKING } from '../../src/matcher/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { servedFromCache } from '../helpers/lazy-index.js';
import { makeToolDefinition } from './helpers.js';

// Issue #18: a server from its scan cache makes each tool as it is read (~0.03 ms), and reading 2,000 of them a step
// held the event loop ~70 ms at 3,148 tools while it prepared matching; a /healthz or a call by name waited for it.
const TOOLS = Array.from({ length: 1_500 }, (_, at) =>
  makeToolDefinition({ name: `report-${String(at).padStart(4, '0')}`, intent: `report number ${at} of the ledger`, examples: at % 50 === 0 ? [`show report ${at} of the ledger`] : [] }),
);

// the most tools made between two stops of `steps`, run to its end
function mostMadeAStep(steps: Generator<void, unknown, void>, made: () => number): number {
  let most = 0;
  let before = made();
  while (!steps.next().done) {
    most = Math.max(most, made() - before);
    before = made();
  }
  return Math.max(most, made() - before);
}

describe('calibration over an index whose tools are made when read', () => {
  describe('when a server prepares matching a step at a time', () => {
    it('reads at most a few hundred tools a step, looking for Chinese probes and counting the probes', () => {
      const chinese = servedFromCache(TOOLS);
      expect(mostMadeAStep(hasChineseProbesSteps(toolsOf(chinese.index)), chinese.made)).toBeLessThanOrEqual(256);

      const counted = servedFromCache(TOOLS);
      const search = buildSearchIndex(toolsOf(counted.index));
      const steps = calibrationSteps(search, FITTED_RANKING, FITTED_DECISION);
      expect(mostMadeAStep(steps, counted.made)).toBeLessThanOrEqual(256);
    });

    it('measures the same cut as calibrate', () => {
      const { index } = servedFromCache(TOOLS);
      const search = buildSearchIndex(toolsOf(index));
      const steps = calibrationSteps(search, FITTED_RANKING, FITTED_DECISION);
      let step = steps.next();
      while (!step.done) step = steps.next();
      expect(step.value).toEqual(calibrate(search, FITTED_RANKING, FITTED_DECISION));
    });
  });
});
