import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ErrorCode } from '../core/index.js';

/** A path resolved inside a root, or why it was refused. */
export type RootPath =
  | { ok: true; /** absolute, symlinks resolved */ path: string; /** resolved root */ root: string }
  | { ok: false; code: Extract<ErrorCode, 'PATH_OUTSIDE_ROOT' | 'IO_ERROR' | 'EXECUTOR_MISCONFIGURED'>; message: string };

/** Options of {@link resolveInsideRoot}. */
export interface ResolveOptions {
  /** accept a path that does not exist yet (to be created), as long as its nearest existing parent is inside */
  allowMissing?: boolean;
  /** absolute paths refused as if outside the root, with what is inside them (the gateway's own data), however they are reached */
  hidden?: readonly string[];
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function outside(requested: string): RootPath {
  return {
    ok: false,
    code: 'PATH_OUTSIDE_ROOT',
    message: `path '${requested}' leads outside the root; give a path relative to the root without '..' and without symlinks that point out of it`,
  };
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function hidden(requested: string): RootPath {
  return {
    ok: false,
    code: 'PATH_OUTSIDE_ROOT',
    message: `path '${requested}' is hidden from tools: it holds the gateway's own data (its data or cache folder, receipts database or config); choose a path outside it`,
  };
}

/**
 * Resolves `requested` (relative to `root`, or absolute) and refuses it unless it stays inside the root
 * after `..` and every symlink are resolved, and outside every `hidden` path.
 */
export async function resolveInsideRoot(root: string, requested: string, options: ResolveOptions = {}): Promise<RootPath> {
  const resolved = await resolveInRoot(root, requested, options);
  if (!resolved.ok || !isHiddenPath(options.hidden ?? [], resolved.path)) return resolved;
  return hidden(requested);
}

/** Whether `candidate` (absolute, symlinks resolved) is one of the `hidden` paths or inside one. */
export function isHiddenPath(hiddenPaths: readonly string[], candidate: string): boolean {
  return hiddenPaths.some((path) => isInside(path, candidate));
}

async function resolveInRoot(root: string, requested: string, options: ResolveOptions): Promise<RootPath> {
  if (requested.includes('\0')) return outside(requested.replaceAll('\0', '\\0'));
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return { ok: false, code: 'EXECUTOR_MISCONFIGURED', message: `the root '${root}' does not exist; configure an existing folder as the root` };
  }
  const base = resolve(root);
  const candidate = isAbsolute(requested) ? resolve(requested) : resolve(realRoot, requested);
  // a lexical check first, so that '..' and foreign absolute paths are refused before touching the disk
  if (!isInside(realRoot, candidate) && !isInside(base, candidate)) return outside(requested);
  try {
    const real = await realpath(candidate);
    return isInside(realRoot, real) ? { ok: true, path: real, root: realRoot } : outside(requested);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') return { ok: false, code: 'IO_ERROR', message: String((error as Error).message) };
    if (!options.allowMissing) return { ok: false, code: 'IO_ERROR', message: `ENOENT: no such file or directory: '${requested}'` };
    return resolveMissing(realRoot, candidate, requested);
  }
}

// The nearest existing parent decides where a new file lands; a dangling symlink on the way could point anywhere.
async function resolveMissing(realRoot: string, candidate: string, requested: string): Promise<RootPath> {
  let existing = candidate;
  const missing: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') return { ok: false, code: 'IO_ERROR', message: String((error as Error).message) };
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch {
    // it exists for lstat but not for realpath: a symlink whose target is missing
    return outside(requested);
  }
  const path = join(realExisting, ...missing);
  return isInside(realRoot, realExisting) && isInside(realRoot, path) ? { ok: true, path, root: realRoot } : outside(requested);
}
