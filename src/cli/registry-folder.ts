import { existsSync, lstatSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, type EntryKind } from '../core/index.js';

/**
 * The kind whose folder `path` is to be read as (`tools/`: its entries are tools), or undefined when it is a
 * registry's root, named so or not. A registry checked out as `tools/` (holding `.git`, or a `tools/` of its own that
 * is not one of its entries) is a registry, as `serve --repo` reads it: `validate` found nothing in it (review U, LOW).
 */
export function kindFolderOf(path: string): EntryKind | undefined {
  const absolute = resolve(path);
  const kind = ENTRY_KINDS.find((each) => ENTRY_LAYOUT[each].folder === basename(absolute));
  if (kind === undefined || existsSync(join(absolute, '.git'))) return undefined;
  // tools/skills/TOOL.hdlp is the tool `skills`; a tools/skills/ without TOOL.hdlp is the skills/ of a registry named tools
  const ownRegistry = ENTRY_KINDS.some((each) => {
    const folder = join(absolute, ENTRY_LAYOUT[each].folder);
    return isFolder(folder) && !present(join(folder, ENTRY_LAYOUT[kind].file));
  });
  return ownRegistry ? undefined : kind;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether `path` exists as a name: the link itself counts, so a symlinked or dangling TOOL.hdlp is an entry that
 * validate lists and reports as not a regular file (as a scan does), never a missing one.
 */
export function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
