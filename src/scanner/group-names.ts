import type { Diagnostic } from '../core/index.js';
import type { ToolStub } from './build-index.js';

/**
 * `GROUP_NAMES_TOOL`: a tool whose `group` is another tool's name or alias (in any letter case). A list that allows by
 * name — a principal's `tools`, an `allow` rule — gives such a name's tool alone, and `tool_load` of it loads the tool:
 * a definition's `group` is any pusher's to write, and a new tool with `group: Git-Ops` was given to every principal
 * limited to `[git-ops]` and skipped every approval an `allow` rule for git-ops waived (review Z6, Z6-3). Said where the
 * author can see it, since the tool is not in the group's grants they may have meant it to be in; a deny or approve rule
 * naming it still covers both.
 */
export function groupNamesTool<T extends ToolStub>(tool: T, owners: ReadonlyMap<string, T>, aliasOwners: ReadonlyMap<string, T>): Diagnostic | undefined {
  if (tool.group === undefined) return undefined;
  const key = tool.group.toLowerCase();
  const named = owners.get(key);
  const other = named ?? aliasOwners.get(key);
  if (other === undefined || other === tool) return undefined;
  const what = named ? 'the name' : 'an alias';
  return {
    file: tool.source.path, line: 1, column: 1, severity: 'warning', code: 'GROUP_NAMES_TOOL',
    message: `group '${tool.group}' is also ${what} of tool '${other.name}': a principal's tools, an allow rule or tool_load naming '${tool.group}' mean '${other.name}' alone, never this tool (a deny or approve rule covers both); give the group a name no tool or alias has`,
  };
}
