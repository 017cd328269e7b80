import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/scanner/full-collection.js';

// A cold scan collects its garbage where it has just let go of far more than it keeps (after a clone's indexing, after
// the reading): V8's own schedule left it in the heap while the next step grew the process beside it.

describe('collectGarbage', () => {
  it('collects what nothing refers to any more, now', async () => {
    let held: object | undefined = { large: new Array(1000).fill('x') };
    const reference = new WeakRef(held);
    held = undefined;
    // a WeakRef's target is kept to the end of the job that made it
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(reference.deref()).toBeUndefined();
  });
});
