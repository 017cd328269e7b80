import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, formatDiagnostic, type Diagnostic, type EntryKind } from '../../../core/index.js';
import type { DefinitionFile } from '../../../scanner/index.js';
import { JSON_OPTION, writeJson, writeLines, type Command } from '../command.js';

/** `hldp validate`: lint `TOOL.hdlp`, `TOOLSET.hdlp` and `SKILL.md` files in the working tree, for authors and pre-commit hooks. */
export const validateCommand: Command = {
  name: 'validate',
  usage: '[PATH...] [--json]',
  summary: 'check TOOL.hdlp, TOOLSET.hdlp and SKILL.md files: file:line:col: message per problem, exit 1 on any error',
  options: { ...JSON_OPTION },
  maxPositionals: Infinity,
  async run(flags, positionals, io) {
    const { validateDefinitionFiles } = await import('../../../scanner/index.js');
    const files: DefinitionFile[] = [];
    const roots = new Set<string>();
    const missing: Diagnostic[] = [];
    for (const path of positionals.length ? positionals : ['.']) {
      if (!existsSync(path)) {
        missing.push({ file: path, line: 1, column: 1, severity: 'error', code: 'NOT_A_FILE', message: 'no such file or folder' });
        continue;
      }
      for (const { file, kind, root } of definitionFilesAt(path)) {
        files.push(readDefinition(file, kind));
        if (root !== undefined) roots.add(root);
      }
    }
    // a toolset's members are checked against every tool of the repository it sits in, not only the files given
    const context = [...roots].flatMap((root) => repositoryFiles(root).map(({ file, kind }) => readDefinition(file, kind)));
    const result = validateDefinitionFiles(files, context);
    const errors = [...missing, ...result.errors];
    const ordered = [...errors, ...result.warnings].sort(byPlace);
    if (flags.json) writeJson(io, { files: files.length, errors, warnings: result.warnings });
    else {
      writeLines(io.stdout, ordered.map(formatDiagnostic));
      io.stderr.write(`${files.length} file(s): ${errors.length} error(s), ${result.warnings.length} warning(s)\n`);
    }
    return errors.length ? 1 : 0;
  },
};

interface FoundFile {
  file: string;
  kind: EntryKind;
  /** the repository the file sits in, when it is laid out as one (`<root>/tools/<name>/TOOL.hdlp`) */
  root?: string;
}

const KIND_OF_FILE = new Map(ENTRY_KINDS.map((kind) => [ENTRY_LAYOUT[kind].file, kind]));
const KIND_OF_FOLDER = new Map(ENTRY_KINDS.map((kind) => [ENTRY_LAYOUT[kind].folder, kind]));

/** A file as given, a repository folder (tools/, toolsets/, skills/), an entry folder, or a tools/ (toolsets/, skills/) folder itself. */
function definitionFilesAt(path: string): FoundFile[] {
  if (statSync(path).isFile()) return [located(path, KIND_OF_FILE.get(basename(path)) ?? 'tool')];
  const own = ENTRY_KINDS.map((kind) => join(path, ENTRY_LAYOUT[kind].file)).filter((file) => existsSync(file));
  if (own.length) return own.map((file) => located(file, KIND_OF_FILE.get(basename(file))!));
  const kindFolder = KIND_OF_FOLDER.get(basename(resolve(path)));
  if (kindFolder) return entriesOf(resolve(path, '..'), [kindFolder]);
  if (ENTRY_KINDS.some((kind) => existsSync(join(path, ENTRY_LAYOUT[kind].folder)))) return entriesOf(path, ENTRY_KINDS);
  // a folder of tool folders under another name
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(path, entry.name, ENTRY_LAYOUT.tool.file))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, kind: 'tool' as const }));
}

function entriesOf(root: string, kinds: readonly EntryKind[]): FoundFile[] {
  return kinds.flatMap((kind) => repositoryFiles(root, kind));
}

/** Every definition file of one kind (or of all kinds) under a repository root. */
function repositoryFiles(root: string, only?: EntryKind): FoundFile[] {
  return ENTRY_KINDS.filter((kind) => only === undefined || kind === only).flatMap((kind) => {
    const top = join(root, ENTRY_LAYOUT[kind].folder);
    if (!existsSync(top) || !statSync(top).isDirectory()) return [];
    return readdirSync(top, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(top, entry.name, ENTRY_LAYOUT[kind].file))
      .filter((file) => existsSync(file))
      .map((file) => ({ file, kind, root }));
  });
}

// `<root>/<kind folder>/<name>/<file>`: the root is three folders up
function located(file: string, kind: EntryKind): FoundFile {
  const absolute = resolve(file);
  const kindFolder = dirname(dirname(absolute));
  return basename(kindFolder) === ENTRY_LAYOUT[kind].folder ? { file, kind, root: dirname(kindFolder) } : { file, kind };
}

function readDefinition(file: string, kind: EntryKind): DefinitionFile {
  const shown = relative(process.cwd(), resolve(file)) || file;
  return { ...(kind === 'tool' ? {} : { kind }), path: shown, folder: basename(dirname(resolve(file))), oid: shown, content: readFileSync(file) };
}

function byPlace(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}
