import { closeSync, constants, openSync } from 'node:fs';

// Opening a folder by descriptor, one component at a time: what a root gateway writes into a workspace a tool can
// change meanwhile is written relative to the folder it judged, never through a path the kernel resolves again.

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A name inside an open folder, as a path the kernel resolves from that folder (the magic link), not from its name. */
export const insideDescriptor = (fd: number, name: string): string => `/proc/self/fd/${fd}/${name}`;

/** An open folder, or why it could not be opened: `linked` when a component is a symbolic link (or not a folder). */
export type OpenedFolder = { ok: true; fd: number } | { ok: false; linked: boolean };

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
      return { ok: false, linked: code === 'ELOOP' || code === 'ENOTDIR' };
    }
  }
  return { ok: true, fd };
}
