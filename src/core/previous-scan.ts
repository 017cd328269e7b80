import type { ToolIndex } from './tool-index.js';

// an index patched at a process's start from the scan the cache held (a commit the repository has since moved on
// from), to that scan's index; taken once
const previousScans = new WeakMap<object, ToolIndex>();

/**
 * Records that `index` was patched at a start from `previous`, the index of an older scan the cache held, served from
 * the same cache file (`sameToolsAt` tells their unchanged tools): what was kept for `previous` (a search index) can
 * be updated for `index` with the changed tools alone, instead of made again from every tool (issue #18).
 */
export function markPatchedFrom(index: ToolIndex, previous: ToolIndex): ToolIndex {
  previousScans.set(index, previous);
  return index;
}

/**
 * The index `index` was patched from at a start (`markPatchedFrom`), once: the link is dropped as it is taken, so the
 * older index (its names, its file's stored index) is not held for the life of the newer one.
 */
export function takePatchedFrom(index: ToolIndex): ToolIndex | undefined {
  const previous = previousScans.get(index);
  previousScans.delete(index);
  return previous;
}
