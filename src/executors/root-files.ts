import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

// On Linux, `/proc/self/fd/N/name` resolves `name` inside the directory that descriptor N holds open,
// however that directory has been renamed or replaced since: openat(2) for Node, which has none.
const DESCRIPTOR_PATHS = existsSync('/proc/self/fd');

/** How {@link openInsideRoot} opens the last component. */
export interface OpenInsideRootOptions {
  flags: number;
  mode?: number;
  /** create the folders on the way that do not exist */
  createDirs?: boolean;
}

/**
 * Opens `path` (already resolved inside `realRoot` by `resolveInsideRoot`) without following a symlink
 * anywhere below the root: each folder on the way is opened relative to the one before with
 * O_NOFOLLOW, so a folder swapped for a symlink between the check and the open is refused (ELOOP)
 * instead of followed out of the root. Without `/proc/self/fd` (not Linux) only the last
 * component is guarded.
 */
export async function openInsideRoot(realRoot: string, path: string, options: OpenInsideRootOptions): Promise<FileHandle> {
  const flags = options.flags | constants.O_NOFOLLOW;
  if (!DESCRIPTOR_PATHS) {
    if (options.createDirs) await mkdir(dirname(path), { recursive: true });
    return open(path, flags, options.mode);
  }
  const parts = relative(realRoot, path).split(sep).filter((part) => part !== '');
  if (parts.length === 0) return open(realRoot, flags | constants.O_DIRECTORY, options.mode);
  const folders = parts.slice(0, -1);
  let folder = await open(realRoot, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const part of folders) {
      const next = join(descriptorPath(folder), part);
      if (options.createDirs) await mkdir(next).catch(ignoreExisting);
      const child = await openNoFollow(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      await folder.close();
      folder = child;
    }
    return await openNoFollow(join(descriptorPath(folder), basename(path)), flags, options.mode);
  } finally {
    await folder.close();
  }
}

// With O_DIRECTORY, Linux answers a symlink with ENOTDIR rather than ELOOP: a symlink is always
// reported as ELOOP, so that callers tell "swapped for a symlink" from "not a folder" by one code.
async function openNoFollow(path: string, flags: number, mode?: number): Promise<FileHandle> {
  try {
    return await open(path, flags, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR' && (await lstat(path).catch(() => undefined))?.isSymbolicLink()) {
      throw Object.assign(new Error(`ELOOP: '${basename(path)}' became a symlink since the path was checked`), { code: 'ELOOP' });
    }
    throw error;
  }
}

/** A path that names what `handle` holds open (on Linux, whatever has been renamed since), else `path`. */
export function pathOfHandle(handle: FileHandle, path: string): string {
  return DESCRIPTOR_PATHS ? descriptorPath(handle) : path;
}

function descriptorPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

function ignoreExisting(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error;
}
