import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';

// Opening a folder by descriptor, one component at a time: what a root gateway writes into a workspace a tool can
// change meanwhile is written relative to the folder it judged, never through a path the kernel resolves again.

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A name inside an open folder, as a path the kernel resolves from that folder (the magic link), not from its name. */
export const insideDescriptor = (fd: number, name: string): string => `/proc/self/fd/${fd}/${name}`;

/** An open folder, or why it could not be opened: `linked` when a component is a symbolic link (or not a folder), `absent` when one is not there. */
export type OpenedFolder = { ok: true; fd: number } | { ok: false; linked: boolean; absent?: boolean };

/**
 * The folder at the absolute, normalised `path`, opened from `/` a component at a time with O_NOFOLLOW: a component
 * that is (or was swapped for) a symbolic link stops the walk (review T, T3: a tool exchanged its own folder for
 * `../victim` between the launch's walk and the write, and root made files in a repository outside the workspace).
 * Close the descriptor with `closeSync`.
 */
export function openFolderNoFollow(path: string): OpenedFolder {
  const parts = path.split('/').filter((part) => part !== '');
  if (!path.startsWith('/') || parts.some((part) => part === '.' || part === '..')) return { ok: false, linked: false };
  let fd: number;
  try {
    fd = openSync('/', FOLDER_FLAGS);
  } catch {
    return { ok: false, linked: false };
  }
  for (const part of parts) {
    try {
      const next = openSync(insideDescriptor(fd, part), FOLDER_FLAGS);
      closeSync(fd);
      fd = next;
    } catch (error) {
      closeSync(fd);
      const code = (error as NodeJS.ErrnoException).code;
      return { ok: false, linked: code === 'ELOOP' || code === 'ENOTDIR', absent: code === 'ENOENT' };
    }
  }
  return { ok: true, fd };
}

// Linux's O_PATH, which node's constants leave out: a handle on the entry itself, opened without reading it (a FIFO a
// tool put there does not block the gateway, a file it made unreadable still opens)
const O_PATH = 0o10000000;

/**
 * The entry at the absolute, normalised `path` (a folder or a file), opened as `openFolderNoFollow` opens its folder,
 * then itself with O_PATH: an entry that is a symbolic link is `linked`, as a link on the way is.
 */
export function openPathNoFollow(path: string): OpenedFolder {
  if (path === '/') return openFolderNoFollow(path);
  const parent = openFolderNoFollow(dirname(path));
  if (!parent.ok) return parent;
  let fd: number;
  try {
    fd = openSync(insideDescriptor(parent.fd, basename(path)), O_PATH | constants.O_NOFOLLOW);
  } catch (error) {
    return { ok: false, linked: false, absent: (error as NodeJS.ErrnoException).code === 'ENOENT' };
  } finally {
    closeSync(parent.fd);
  }
  // O_PATH with O_NOFOLLOW opens a symbolic link itself rather than refusing it
  if (!fstatSync(fd).isSymbolicLink()) return { ok: true, fd };
  closeSync(fd);
  return { ok: false, linked: true };
}
