import { realpathSync } from 'node:fs';
import { posix } from 'node:path';

/**
 * A path as the tool will reach it: `relative` to its root (`.` for the root itself) when it stays inside, or
 * undefined when that cannot be told (a path that climbs out of the root, an absolute path outside every root, a
 * NUL byte); and its `absolute` names: one through each root for a path inside, the path itself for an absolute
 * path outside, none when the root is unknown.
 */
export interface RootedPath {
  relative: string | undefined;
  absolute: readonly string[];
}

/**
 * Reads `text` as a path under `roots` (the tool's root as configured and as its symlinks resolve; empty when the
 * gateway does not know where the tool's paths land): `.` and `..` segments, doubled and trailing slashes
 * normalised, an absolute path inside a root made relative to it. Lexical only: see {@link resolvedRootedPath} for
 * where its symlinks lead.
 */
export function rootedPath(text: string, roots: readonly string[]): RootedPath {
  if (text.includes('\0')) return { relative: undefined, absolute: [] };
  const bases = roots.map((root) => withoutTrailingSlash(posix.normalize(root)));
  if (posix.isAbsolute(text)) {
    const absolute = withoutTrailingSlash(posix.normalize(text));
    for (const base of bases) {
      const prefix = base === '/' ? '/' : `${base}/`;
      if (absolute === base || absolute.startsWith(prefix)) return inside(absolute === base ? '.' : absolute.slice(prefix.length), bases);
    }
    return { relative: undefined, absolute: [absolute] };
  }
  const normal = withoutTrailingSlash(posix.normalize(text === '' ? '.' : text));
  if (normal === '..' || normal.startsWith('../')) return { relative: undefined, absolute: bases.map((base) => posix.join(base, normal)) };
  return inside(normal, bases);
}

function inside(relative: string, bases: readonly string[]): RootedPath {
  return { relative, absolute: bases.map((base) => posix.join(base, relative)) };
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') || '/' : path;
}

/**
 * Where `text`, read under `roots` as `path` (see {@link rootedPath}), really leads: resolved as the kernel resolves
 * it, each symlink before a `..` after it (`link/../key` with `link -> secrets/sub` is `secrets/key`, where the
 * lexical reading says `key`), as far as it exists (what does not exist yet is taken as written), read under the same
 * `roots`: a symlink inside the workspace (`link -> secrets`) reaches files a glob on the spelling would not name.
 * `relative` is undefined when it leads out of every root or cannot be resolved. A hard link is one file under two
 * names: no glob on a name can see it.
 */
export function resolvedRootedPath(text: string, path: RootedPath, roots: readonly string[]): RootedPath {
  const base = roots[0];
  if (path.relative === undefined || base === undefined) return path;
  // the path as spelt, not as normalised: posix.join would cancel `link/..` before the disk is asked
  const spelt = (posix.isAbsolute(text) ? text : `${base}/${text}`).split('/');
  const missing: string[] = [];
  while (spelt.length > 0) {
    const existing = spelt.join('/') || '/';
    try {
      return rootedPath(posix.join(realpathSync.native(existing), ...missing), roots);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || existing === '/') return { relative: undefined, absolute: [] };
      missing.unshift(spelt.pop()!);
    }
  }
  return { relative: undefined, absolute: [] };
}
