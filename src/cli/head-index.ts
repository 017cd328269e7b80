import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { eachTool, type Diagnostic, type ToolIndex } from '../core/index.js';

/** What a validation's index says of name clashes: whether any claim on a name or alias was refused or ignored. */
export function hasNameClash(index: Pick<ToolIndex, 'contested' | 'errors' | 'warnings'>): boolean {
  const clash = (diagnostic: Diagnostic): boolean => diagnostic.code === 'DUPLICATE_NAME' || diagnostic.code === 'ALIAS_CONFLICT';
  return (index.contested?.length ?? 0) > 0 || index.errors.some(clash) || index.warnings.some(clash);
}

/**
 * The index a gateway serving each registry root as a git repository serves at its HEAD, scanned as `hldp scan --repo
 * ROOT` scans it (a clash there settled by git history), its paths as `hldp validate` shows them (relative to the
 * current folder): the previous index a scan of the next commit settles its name clashes against (userZ5, F1). A root
 * that is no git repository's top (a plain folder, a folder of a repository, a linked worktree: the gateway reads it
 * as a folder) or whose HEAD cannot be scanned (no commit yet) gives nothing; undefined when none gives anything.
 */
export async function headIndexOf(roots: Iterable<string>, options: { cacheDir: string; maxDefinitionBytes: number }): Promise<ToolIndex | undefined> {
  const { scanOnce } = await import('../scanner/index.js');
  const heads: ToolIndex[] = [];
  for (const root of new Set([...roots].map((each) => resolve(each)))) {
    const dotGit = join(root, '.git');
    if (!existsSync(dotGit) || !statSync(dotGit).isDirectory()) continue;
    let index: ToolIndex;
    try {
      index = await scanOnce(root, { cacheDir: options.cacheDir, maxDefinitionBytes: options.maxDefinitionBytes });
    } catch {
      continue;
    }
    const shown = (path: string): string => relative(process.cwd(), resolve(root, path)) || path;
    // run from the registry's root (a pre-commit hook's case) its paths are the scan's: nothing is made again
    if (relative(process.cwd(), root) === '') heads.push(index);
    else heads.push({ ...index, tools: [...eachTool(index)].map((tool) => ({ ...tool, source: { ...tool.source, path: shown(tool.source.path) } })), toolsets: index.toolsets.map((toolset) => ({ ...toolset, source: { ...toolset.source, path: shown(toolset.source.path) } })) });
  }
  if (heads.length <= 1) return heads[0];
  return { ...heads[0]!, tools: heads.flatMap((head) => [...eachTool(head)]), toolsets: heads.flatMap((head) => head.toolsets) };
}
