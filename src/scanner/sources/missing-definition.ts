import { ENTRY_LAYOUT, type Diagnostic, type EntryKind } from '../../core/index.js';

/** The kinds whose entries are folders holding one definition file (`tools/<name>/TOOL.hdlp`), not flat files. */
export const FOLDER_KINDS: readonly EntryKind[] = (Object.keys(ENTRY_LAYOUT) as EntryKind[]).filter((kind) => !ENTRY_LAYOUT[kind].flat);

/** What a scan says of a folder under tools/ (toolsets/, skills/) that holds no definition file: it is not an entry. */
export function missingDefinition(kind: EntryKind, folder: string): Diagnostic {
  const { folder: top, file } = ENTRY_LAYOUT[kind];
  return { file: `${top}/${folder}/`, line: 1, column: 1, severity: 'warning', code: 'MISSING_DEFINITION', message: `${top}/${folder}/ has no ${file}, so it is not a ${kind}` };
}

// what an author writes for a definition file: its name in other letters, or a YAML file's usual extension for a
// `.hdlp` (which is YAML); a `tool.md` beside a script is more likely its notes, and a bare `tool` its program
const MEANT_EXTENSIONS: Readonly<Record<string, readonly string[]>> = { hdlp: ['hdlp', 'yaml', 'yml'], md: ['md', 'markdown'] };

/**
 * Whether `name` is meant as the definition file of a `kind` entry but is not it (review userU, F1): `tool.hdlp`,
 * `Tool.hdlp`, `TOOL.yaml` or `skill.md` are never read by a scan, which reads `TOOL.hdlp` (`SKILL.md`) in those
 * letters only, so the tool is not served and nothing but a scan's warning says so.
 */
export function isNearMissDefinition(kind: EntryKind, name: string): boolean {
  const { file, flat } = ENTRY_LAYOUT[kind];
  if (flat || name === file) return false;
  const dot = name.indexOf('.');
  const stem = dot < 0 ? name : name.slice(0, dot);
  const extension = dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
  const [fileStem, fileExtension] = file.split('.') as [string, string];
  return stem.toLowerCase() === fileStem.toLowerCase() && (MEANT_EXTENSIONS[fileExtension.toLowerCase()] ?? []).includes(extension);
}

/**
 * What `hldp validate` says of a `kind` folder without its definition file, given the names of what it holds (and
 * `<folder>/<file>` for a definition one level down): the scan's warning, made an error naming the file to rename
 * when it holds one meant as the definition, or the move when it holds one a folder too deep.
 */
export function unreadDefinition(kind: EntryKind, folder: string, names: readonly string[]): Diagnostic {
  const missing = missingDefinition(kind, folder);
  const { folder: top, file } = ENTRY_LAYOUT[kind];
  // `tools/nested/deeper/TOOL.hdlp`: the definition sits one folder too deep (userZ7, F4)
  const deeper = names.filter((name) => name.endsWith(`/${file}`) && name.indexOf('/') === name.length - file.length - 1).sort();
  if (deeper.length) {
    const sub = deeper[0]!.slice(0, -file.length - 1);
    return { ...missing, severity: 'error', message: `${missing.message}: it holds ${deeper.map((name) => `'${name}'`).join(', ')}, one folder too deep, which a scan never reads (a ${kind} is ${top}/<name>/${file}); move it to ${top}/${folder}/${file}, or the folder to ${top}/${sub}/` };
  }
  const meant = names.filter((name) => isNearMissDefinition(kind, name)).sort();
  if (!meant.length) return missing;
  const shown = meant.map((name) => `'${name}'`).join(', ');
  return { ...missing, severity: 'error', message: `${missing.message}: it holds ${shown}, which a scan never reads (it reads ${file} only, in those letters); rename it to ${file}` };
}

/** What `hldp validate` says of a file given by path that is named as a definition file would be but is not one. */
export function misnamedDefinition(path: string, name: string): Diagnostic | undefined {
  const kind = FOLDER_KINDS.find((each) => isNearMissDefinition(each, name));
  if (kind === undefined) return undefined;
  const { folder: top, file } = ENTRY_LAYOUT[kind];
  return { file: path, line: 1, column: 1, severity: 'error', code: 'MISSING_DEFINITION', message: `${name} is never read by a scan: a ${kind} is read from ${top}/<name>/${file} only, in those letters; rename it to ${file}` };
}
