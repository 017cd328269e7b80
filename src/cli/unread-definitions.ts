import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ENTRY_LAYOUT, type Diagnostic, type EntryKind } from '../core/index.js';
import { FOLDER_KINDS, misnamedDefinition, unreadDefinition } from '../scanner/index.js';
import { kindFolderOf, present } from './registry-folder.js';

/**
 * What a scan would not read at a path given to `hldp validate` (review userU, F1): a folder under tools/ (toolsets/,
 * skills/) without its definition file, as the scan reports it (an error when it holds a file meant as the definition,
 * `tool.hdlp`, `TOOL.yaml`), and a file given by path that is so named. Looked for where `validate` looks for
 * definitions: a repository, one of its kind folders, an entry's folder, a file.
 */
export function unreadDefinitionsAt(path: string): Diagnostic[] {
  if (statSync(path).isFile()) {
    const misnamed = misnamedDefinition(path, basename(path));
    return misnamed ? [misnamed] : [];
  }
  const absolute = resolve(path);
  const kindOfFolder = (name: string): EntryKind | undefined => FOLDER_KINDS.find((kind) => ENTRY_LAYOUT[kind].folder === name);
  const own = FOLDER_KINDS.some((kind) => present(join(path, ENTRY_LAYOUT[kind].file)));
  if (own) return [];
  const kind = kindFolderOf(absolute);
  if (kind) return unreadUnder(dirname(absolute), [kind]);
  if (FOLDER_KINDS.some((each) => existsSync(join(path, ENTRY_LAYOUT[each].folder)))) return unreadUnder(absolute, FOLDER_KINDS);
  // an entry's own folder (tools/bye), or a folder elsewhere holding a file named as a definition would be
  const parentKind = kindOfFolder(basename(dirname(absolute)));
  if (parentKind) return [shownFrom(dirname(dirname(absolute)), unreadDefinition(parentKind, basename(absolute), namesIn(absolute, parentKind)))];
  return readdirSync(path).flatMap((name) => misnamedDefinition(join(path, name), name) ?? []);
}

// each folder of those kinds under a registry's root with no definition file, as the scan reports it
function unreadUnder(root: string, kinds: readonly EntryKind[]): Diagnostic[] {
  return kinds.flatMap((kind) => {
    const top = join(root, ENTRY_LAYOUT[kind].folder);
    if (!existsSync(top) || !statSync(top).isDirectory()) return [];
    return readdirSync(top, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !present(join(top, entry.name, ENTRY_LAYOUT[kind].file)))
      .map((entry) => shownFrom(root, unreadDefinition(kind, entry.name, namesIn(join(top, entry.name), kind))));
  });
}

// the scan's path (`tools/bye/`) shown from the current folder, as validate shows every file
function shownFrom(root: string, diagnostic: Diagnostic): Diagnostic {
  const shown = relative(process.cwd(), root);
  if (!shown) return diagnostic;
  // join keeps the folder's own trailing slash: `tools/lowercase/`, never `tools/lowercase//` (userZ7, F4)
  const file = join(shown, diagnostic.file);
  return { ...diagnostic, file: file.endsWith('/') ? file : `${file}/` };
}

// what a folder holds, with `<sub>/<file>` for each of its folders holding the kind's definition file (one level too deep)
function namesIn(folder: string, kind: EntryKind): string[] {
  const { file } = ENTRY_LAYOUT[kind];
  return readdirSync(folder, { withFileTypes: true }).flatMap((item) => (item.isDirectory() && present(join(folder, item.name, file)) ? [item.name, `${item.name}/${file}`] : [item.name]));
}
