import { describe, expect, it } from 'vitest';
import { collectGarbage, withHeapGrowingAtMost } from '../../src/scanner/full-collection.js';

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

describe('withHeapGrowingAtMost', () => {
  it('runs each of overlapping works to its own end, with its own result or error', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = withHeapGrowingAtMost(async () => {
      await held;
      return 'slow';
    });
    await expect(withHeapGrowingAtMost(async () => 'quick')).resolves.toBe('quick');
    await expect(withHeapGrowingAtMost(async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    release();
    await expect(slow).resolves.toBe('slow');
    // and the process goes on collecting as V8 chooses
    collectGarbage();
  });
});
