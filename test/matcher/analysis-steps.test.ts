import { describe, expect, it } from 'vitest';
import { analysisSteps, analyze, wordBreakerMade } from '../../src/matcher/analyze.js';

// Issue #18: a server restarted onto a newer commit at 100,000 tools made the stop lists and ICU's word breaker in the
// kept index's update, at its first analysis of the changed tool: one hold of the event loop of ~50 ms of CPU after it
// listened. It makes them first, a step each, and analysis answers as before.
describe('analysisSteps', () => {
  describe('when nothing has been analysed yet', () => {
    it('makes the word breaker in its second step, and analysis then answers as before', () => {
      // this file's module state is its own (vitest isolates test files)
      expect(wordBreakerMade()).toBe(false);
      const steps = analysisSteps();
      expect(steps.next().done).toBe(false);
      expect(wordBreakerMade()).toBe(false);
      expect(steps.next().done).toBe(true);
      expect(wordBreakerMade()).toBe(true);
      const terms = analyze('打开文件 and read the files');
      expect(terms).toEqual(expect.arrayContaining(['文件', 'read', 'file']));
      expect(terms).not.toContain('the');
    });
  });
});
