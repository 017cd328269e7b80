import { describe, expect, it } from 'vitest';
import { runLettingGo } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from '../matcher/helpers.js';

// Review R, R15: a server that closed went on preparing matching to its end; the work now stops at its next turn.

/** Steps that never end, each a millisecond of work, noting whether the generator was closed. */
function endless(closed: { value: boolean }): Generator<void, never, void> {
  return (function* () {
    try {
      for (;;) {
        const until = performance.now() + 1;
        while (performance.now() < until);
        yield;
      }
    } finally {
      closed.value = true;
    }
  })();
}

describe('runLettingGo', () => {
  describe('when its signal is aborted while it runs', () => {
    it('rejects with the reason at its next turn and closes the generator', async () => {
      const stop = new AbortController();
      const closed = { value: false };
      const running = runLettingGo(endless(closed), 5, stop.signal);
      setImmediate(() => stop.abort(new Error('closing')));
      await expect(running).rejects.toThrow('closing');
      expect(closed.value).toBe(true);
    });
  });

  describe('when its signal is aborted before it starts', () => {
    it('rejects without running a step', async () => {
      const stop = new AbortController();
      stop.abort(new Error('closed'));
      let ran = false;
      const steps = (function* () {
        ran = true;
        yield;
        return 1;
      })();
      await expect(runLettingGo(steps, 5, stop.signal)).rejects.toThrow('closed');
      expect(ran).toBe(false);
    });
  });
});

describe('Matcher.prepareLettingGo', () => {
  describe('when its signal is aborted', () => {
    it('rejects, and the matcher still answers as one never prepared', async () => {
      const tools = [makeToolDefinition({ name: 'city-weather', intent: 'the rain and wind expected in a city' }), makeToolDefinition({ name: 'umbrella-shop', intent: 'sell umbrellas' })];
      const stop = new AbortController();
      stop.abort(new Error('closing'));
      const stopped = createMatcher(makeIndex(tools));
      await expect(stopped.prepareLettingGo(stop.signal)).rejects.toThrow('closing');
      expect(stopped.matchIntent('will it rain in the city')).toEqual(createMatcher(makeIndex(tools)).matchIntent('will it rain in the city'));
    });
  });
});
