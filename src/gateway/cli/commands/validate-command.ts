import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { formatDiagnostic, type Diagnostic } from '../../../core/index.js';
import type { DefinitionFile } from '../../../scanner/index.js';
import { JSON_OPTION, writeJson, writeLines, type Command } from '../command.js';

/** `hldp validate`: lint `TOOL.hdlp` files in the working tree, for authors and pre-commit hooks. */
export const validateCommand: Command = {
  name: 'validate',
  usage: '[PATH...] [--json]',
  summary: 'check TOOL.hdlp files: file:line:col: message per problem, exit 1 on any error',
  options: { ...JSON_OPTION },
  maxPositionals: Infinity,
  async run(flags, positionals, io) {
    const { validateDefinitionFiles } = await import('../../../scanner/index.js');
    const files: DefinitionFile[] = [];
    const missing: Diagnostic[] = [];
    for (const path of positionals.length ? positionals : ['.']) {
      if (!existsSync(path)) {
        missing.push({ file: path, line: 1, column: 1, severity: 'error', code: 'NOT_A_FILE', message: 'no such file or folder' });
        continue;
      }
      for (const file of definitionFilesAt(path)) files.push(readDefinition(file));
    }
    const result = validateDefinitionFiles(files);
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

/** A file as given, a folder holding `tools/`, a tool folder, or a `tools/` folder itself. */
function definitionFilesAt(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  const candidates = [join(path, 'TOOL.hdlp')];
  const tools = existsSync(join(path, 'tools')) ? join(path, 'tools') : path;
  for (const entry of readdirSync(tools, { withFileTypes: true })) {
    if (entry.isDirectory()) candidates.push(join(tools, entry.name, 'TOOL.hdlp'));
  }
  return candidates.filter((candidate) => existsSync(candidate));
}

function readDefinition(file: string): DefinitionFile {
  const shown = relative(process.cwd(), resolve(file)) || file;
  return { path: shown, folder: basename(dirname(resolve(file))), oid: shown, content: readFileSync(file) };
}

function byPlace(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}
