import { foldedKey, type Diagnostic, type ToolIndex } from '../core/index.js';
import { FRONT_MATTER, MOST_ALIAS_CONFLICTS, unknownSkillToolset, writtenDocument, type DefinitionFile } from '../scanner/index.js';

/**
 * The aliases of tool definitions refused for another error that are another tool's name or alias: told in the same
 * run as that error (ALIAS_CONFLICT, at the alias), not once it is fixed (review userZ9, U9-4). A file whose YAML does
 * not parse is left out: what it declares cannot be read. A file is warned of its first 20, the last saying how many
 * more, as the scan warns a served tool (review Z20-1: 4,000 conflicting aliases were 4,000 warnings).
 */
export function refusedToolAliasWarnings(files: readonly DefinitionFile[], index: Pick<ToolIndex, 'tools'>): Diagnostic[] {
  const served = new Set(index.tools.map((tool) => tool.source.path));
  const owners = new Map<string, string>();
  for (const tool of index.tools) for (const name of [tool.name, ...tool.aliases]) if (!owners.has(foldedKey(name))) owners.set(foldedKey(name), tool.name);
  const warnings: Diagnostic[] = [];
  for (const file of files) {
    if ((file.kind ?? 'tool') !== 'tool' || served.has(file.path)) continue;
    const written = writtenDocument(new TextDecoder().decode(file.content));
    if (written === undefined) continue;
    const { value, locator } = written;
    const aliases = Array.isArray(value.aliases) ? value.aliases : [];
    const name = typeof value.name === 'string' ? value.name : file.folder;
    let conflicts = 0;
    aliases.forEach((alias, at) => {
      const holder = typeof alias === 'string' && foldedKey(alias) !== name.toLowerCase() ? owners.get(foldedKey(alias)) : undefined;
      if (holder === undefined || ++conflicts > MOST_ALIAS_CONFLICTS) return;
      const { line, column } = locator.locate(['aliases', at]);
      warnings.push({ file: file.path, line, column, severity: 'warning', code: 'ALIAS_CONFLICT', message: `alias '${alias}' also names tool '${holder}'; once this file's errors are fixed, it is ignored for '${name}'` });
    });
    if (conflicts > MOST_ALIAS_CONFLICTS) {
      const last = warnings.length - 1;
      warnings[last] = { ...warnings[last]!, message: `${warnings[last]!.message}; and ${conflicts - MOST_ALIAS_CONFLICTS} more of its aliases are ignored as well` };
    }
  }
  return warnings;
}

/**
 * A SKILL.md refused for another error whose `toolset:` names no toolset of the registry: told in the same run, with
 * the toolset it likely meant, as the scan tells it of a skill that is otherwise sound (review userZ9, U9-4).
 */
export function refusedSkillToolsetErrors(files: readonly DefinitionFile[], index: Pick<ToolIndex, 'skills' | 'toolsets'>): Diagnostic[] {
  const served = new Set(index.skills.map((skill) => skill.source.path));
  const toolsets = index.toolsets.map((toolset) => toolset.name);
  const errors: Diagnostic[] = [];
  for (const file of files) {
    if (file.kind !== 'skill' || served.has(file.path)) continue;
    const front = FRONT_MATTER.exec(new TextDecoder().decode(file.content).replace(/^\uFEFF/, ''));
    // padded by one empty line, the front matter stands where it stands in the file, as the scan reads it
    const written = front ? writtenDocument(`\n${front[1]!}`) : undefined;
    const toolset = written?.value.toolset;
    if (written === undefined || typeof toolset !== 'string' || toolsets.some((name) => name.toLowerCase() === toolset.toLowerCase())) continue;
    const name = typeof written.value.name === 'string' ? written.value.name : file.folder;
    const { line, column } = written.locator.locate(['toolset']);
    errors.push({ file: file.path, line, column, severity: 'error', code: 'UNKNOWN_MEMBER', message: unknownSkillToolset(name, toolset, toolsets) });
  }
  return errors;
}
