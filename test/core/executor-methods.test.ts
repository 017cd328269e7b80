import { describe, expect, it } from 'vitest';
import { FORGEJO_METHOD_NAMES, GATEKEEPER_METHOD_NAMES } from '../../src/core/index.js';
import { FORGEJO_METHODS } from '../../src/executors/forgejo-methods.js';
import { GATEKEEPER_METHODS } from '../../src/gatekeeper/index.js';

// the scanner checks a definition's method against core's lists (it may not import the executors): they must not drift
describe('the executor method names the scanner checks', () => {
  it('are the gatekeeper methods POST /exec answers', () => {
    expect([...GATEKEEPER_METHOD_NAMES].sort()).toEqual([...GATEKEEPER_METHODS].sort());
  });

  it('are the git-forgejo methods the executor runs', () => {
    expect([...FORGEJO_METHOD_NAMES].sort()).toEqual(Object.keys(FORGEJO_METHODS).sort());
  });
});
