import type { ToolDefinition } from '../core/index.js';
import type { ToolResolver } from './registry-view.js';

/**
 * Whether a tool is reserved by `sessions.on_demand` (seed 001 `tools.on_demand`), as a session's lattice reads the
 * list (`RegistryView`): an entry names a group by its exact name, or the tool a call by that name resolves to (name or
 * alias, folded). Resolves the entries only, never reads the whole registry: `GET /v1/tools` marks a page with it.
 */
export function onDemandTest(entries: readonly string[], resolve: ToolResolver): (tool: Pick<ToolDefinition, 'name' | 'group'>) => boolean {
  if (entries.length === 0) return () => false;
  const groups = new Set(entries);
  const tools = new Set<string>();
  for (const entry of entries) {
    const tool = resolve(entry);
    if (tool) tools.add(tool.name);
  }
  return (tool) => tools.has(tool.name) || (tool.group !== undefined && groups.has(tool.group));
}
