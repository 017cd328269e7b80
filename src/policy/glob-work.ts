import { charge, ParamsTooCostly } from '../matcher/index.js';

/**
 * The longest path a glob judges, in UTF-8 bytes: the kernel's PATH_MAX (a longer one fails with "File name too long"
 * before the tool could open it), and a bound on the backtracking of picomatch's RegExp (review Y, Y4).
 */
export const MAX_GLOB_PATH_BYTES = 4096;
/** The longest name of one segment a glob judges, in UTF-8 bytes: the kernel's NAME_MAX. */
export const MAX_GLOB_SEGMENT_BYTES = 255;
/** The most segments a path a glob judges may have. */
export const MAX_GLOB_SEGMENTS = 256;

/** What makes one glob's RegExp backtrack: its `**` segments (over segments) and its other stars (within one). */
export interface GlobShape {
  globstars: number;
  stars: number;
}

/**
 * The shape of `glob` as picomatch compiles it: each `**` a lazy run over the whole path, each other `*` (and each
 * `+(`/`*(`/`!(` of an extglob, which picomatch makes a lazy run too) one within a segment; braces are not expanded,
 * so every alternative's stars count, which only overstates.
 */
export function globShape(glob: string): GlobShape {
  const globstars = glob.match(/\*\*+/g)?.length ?? 0;
  const stars = glob.replace(/\*\*+/g, '').match(/\*|[+!]\(/g)?.length ?? 0;
  return { globstars, stars };
}

/** Whether the kernel would take `path` at all, and a glob may judge it: see MAX_GLOB_PATH_BYTES and its kin. */
export function judgeablePath(path: string): boolean {
  if (path.length > MAX_GLOB_PATH_BYTES || Buffer.byteLength(path) > MAX_GLOB_PATH_BYTES) return false;
  const segments = path.split('/');
  return segments.length <= MAX_GLOB_SEGMENTS && segments.every((segment) => segment.length <= MAX_GLOB_SEGMENT_BYTES && Buffer.byteLength(segment) <= MAX_GLOB_SEGMENT_BYTES);
}

/**
 * The work of one picomatch RegExp of this shape on `path`, in the params work budget's units (about one step of
 * the RegExp): its length, times the segments for each `**` past the first (each places one split of the path) and
 * the longest segment for each `*` past the first. Measured on adversarial paths (`**` pairs around a literal on
 * that literal repeated, `*a*a*a*b` on `aaa…`), the time grows as this does: quadratic, cubic, quartic.
 */
export function globWork(shape: GlobShape, path: string): number {
  const segments = path.split('/');
  const longest = segments.reduce((most, segment) => Math.max(most, segment.length), 0);
  return path.length * (segments.length + 1) ** Math.max(shape.globstars - 1, 0) * (longest + 1) ** Math.max(shape.stars - 1, 0);
}

/**
 * Runs `matches` on `path` within the running params budget, `work(path)` its cost in the budget's units: a path the
 * kernel would refuse, or whose match would take more than the budget left, cannot be judged (ParamsTooCostly,
 * which a broad rule reads as a match and a strict one as none), so that one call cannot hold the gateway.
 */
export function meteredGlob(work: (path: string) => number, matches: (path: string) => boolean, path: string): boolean {
  if (!judgeablePath(path)) throw new ParamsTooCostly('', `a path longer than ${MAX_GLOB_PATH_BYTES} bytes, ${MAX_GLOB_SEGMENTS} segments or a name of ${MAX_GLOB_SEGMENT_BYTES} bytes cannot be judged`);
  charge(work(path), '', () => 'matching a glob');
  return matches(path);
}
