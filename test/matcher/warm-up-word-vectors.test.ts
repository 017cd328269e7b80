import { describe, expect, it, vi } from 'vitest';
import { calibrate } from '../../src/matcher/calibration.js';
import { FITTED_DECISION, FITTED_RANKING } from '../../src/matcher/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { warmUpSteps } from '../../src/matcher/warm-up.js';
import { wordVectorsRead } from '../../src/matcher/word-vector-file.js';
import { makeToolDefinition } from './helpers.js';

// the first stages the warm-up runs, counted (the module as it is otherwise)
const asked = vi.hoisted(() => ({ firstStages: 0 }));
vi.mock('../../src/matcher/first-stage.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/matcher/first-stage.js')>();
  return {
    ...original,
    firstStage: (...args: Parameters<typeof original.firstStage>) => {
      asked.firstStages += 1;
      return original.firstStage(...args);
    },
  };
});

// Issue #18: after a restart onto a newer commit at 100,000 tools, the warm-up's first request decoded the word vectors'
// table (~3 MB) within its ranking, one of the longest holds of the event loop once the server listened. The table is
// read in a step of its own, before any request is asked.
describe('warmUpSteps', () => {
  describe('when the word vectors are not read yet', () => {
    it('reads them in its first step, and asks nothing in it', () => {
      const tools = [makeToolDefinition({ name: 'weather-now', display: 'weather now', intent: 'Get the current weather for a city.' })];
      const index = buildSearchIndex(tools);
      const engine = { index, ranking: FITTED_RANKING, decision: FITTED_DECISION, calibration: calibrate(index, FITTED_RANKING, FITTED_DECISION) };
      expect(wordVectorsRead()).toBe(false);
      asked.firstStages = 0;
      const steps = warmUpSteps(engine);
      expect(steps.next().done).toBe(false);
      expect(wordVectorsRead()).toBe(true);
      expect(asked.firstStages).toBe(0);
      let step = steps.next();
      while (!step.done) step = steps.next();
      expect(step.value).toBeGreaterThan(0);
      expect(asked.firstStages).toBeGreaterThan(0);
    });
  });
});
