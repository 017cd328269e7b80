import type { Diagnostic, ToolIndex } from '../core/index.js';
import { buildIndex, parseEntry } from './build-index.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import type { ParseOptions } from './yaml-mapping.js';

/**
 * Every problem in a set of definitions (tools, toolsets, skills, policies), including collisions between them and
 * toolset members the registry lacks: what `hldp validate` reports, and the index they make. `context` holds the rest of the repository
 * the files sit in: read so that a toolset's (a policy's) members are checked against every tool, but not itself reported.
 * `previous` is the index served before these files (a git registry's HEAD): a name clash is then settled as a scan
 * after their commit settles it, the claim served there keeping the name.
 */
export function validateDefinitionFiles(
  files: DefinitionFile[],
  context: DefinitionFile[] = [],
  options: ParseOptions = {},
  previous?: ToolIndex,
): { errors: Diagnostic[]; warnings: Diagnostic[]; tools: number; toolsets: number; skills: number; policies: number; index: ToolIndex } {
  const given = new Set(files.map((file) => file.path));
  const others = context.filter((file) => !given.has(file.path));
  const all = [...files, ...others];
  const index = buildIndex('validate', 'working-tree', all.map((file) => parseEntry(file, options)), new Date().toISOString(), all, previous);
  const reported = (diagnostic: Diagnostic): boolean => given.has(diagnostic.file);
  const counted = <T extends { source: { path: string } }>(entries: T[]): number => entries.filter((entry) => given.has(entry.source.path)).length;
  return {
    errors: index.errors.filter(reported),
    warnings: index.warnings.filter(reported),
    tools: counted(index.tools),
    toolsets: counted(index.toolsets),
    skills: counted(index.skills),
    policies: counted(index.policies ?? []),
    // the files given and their repository, for checks made outside the scanner (the policies' warnings)
    index,
  };
}
