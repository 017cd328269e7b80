import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** One draft to write: its folder's name under the output folder, and its text. */
export interface Draft {
  name: string;
  remote: string;
  text: string;
}

/** What writing the drafts did, or the symlink (or other non-folder, non-file) that stopped it before anything was written. */
export type DraftsWritten =
  | { ok: true; written: Array<{ name: string; remote: string; path: string }>; skipped: Array<{ name: string; remote: string; path: string }> }
  | { ok: false; message: string };

/**
 * Writes each draft to `<out>/<name>/TOOL.hdlp`, never over an existing file unless `force`, and never through a
 * symlink (review S, S4): the output folder is often a checkout anyone who pushes fills, and a committed
 * `tools/mcp_<server>_<tool> -> ~/.bashrc.d` (or, with --force, a `TOOL.hdlp -> ~/.bashrc`) made the import write
 * text the MCP server chose wherever the operator may write. Every entry is checked before the first write; the
 * files are then created with O_EXCL|O_NOFOLLOW, or (--force) written beside and renamed over, which replaces a
 * link rather than following it.
 */
export async function writeDrafts(outFolder: string, drafts: readonly Draft[], force: boolean): Promise<DraftsWritten> {
  const out = resolve(outFolder);
  for (const path of [out, ...drafts.flatMap((draft) => [join(out, draft.name), join(out, draft.name, 'TOOL.hdlp')])]) {
    const refusal = await linkRefusal(path, path === out ? 'folder' : path.endsWith('TOOL.hdlp') ? 'file' : 'folder');
    if (refusal !== undefined) return { ok: false, message: refusal };
  }
  await mkdir(out, { recursive: true });
  const written: Array<{ name: string; remote: string; path: string }> = [];
  const skipped: Array<{ name: string; remote: string; path: string }> = [];
  for (const draft of drafts) {
    const folder = join(out, draft.name);
    const path = join(folder, 'TOOL.hdlp');
    try {
      await mkdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const refusal = await linkRefusal(folder, 'folder');
    if (refusal !== undefined) return { ok: false, message: refusal };
    if (await create(path, draft.text, force)) written.push({ name: draft.name, remote: draft.remote, path });
    else skipped.push({ name: draft.name, remote: draft.remote, path });
  }
  return { ok: true, written, skipped };
}

/** Writes `path` unless it exists (or over it, with `force`); false when it existed and was kept. */
async function create(path: string, text: string, force: boolean): Promise<boolean> {
  const target = force ? `${path}.${randomBytes(6).toString('hex')}.tmp` : path;
  let file;
  try {
    file = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if (!force && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await file.writeFile(text);
  } finally {
    await file.close();
  }
  if (force) {
    try {
      await rename(target, path);
    } catch (error) {
      await rm(target, { force: true });
      throw error;
    }
  }
  return true;
}

/** Why `path` may not be written through, or undefined: it is a symlink, or not the kind expected. Nothing there is fine. */
async function linkRefusal(path: string, kind: 'folder' | 'file'): Promise<string | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return undefined;
  if (info.isSymbolicLink()) {
    const target = await readlink(path).catch(() => '?');
    return `${path} is a symlink (to ${target}): the import writes only real folders and files, never through a link, which could put the draft anywhere you may write. Remove it, or choose another --out`;
  }
  if (kind === 'folder' ? !info.isDirectory() : !info.isFile()) return `${path} is not a ${kind === 'folder' ? 'folder' : 'regular file'}: remove it, or choose another --out`;
  return undefined;
}
