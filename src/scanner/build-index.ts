import { compareToolNames, type Diagnostic, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { parseToolDefinition, type DefinitionFile } from './parse-tool-definition.js';
import type { Position } from './yaml-locator.js';

/** What one tool folder produced at one oid: reused as is while the oid does not change. */
export interface ScanEntry {
  folder: string;
  oid: string;
  tool: ToolDefinition | null;
  diagnostics: Diagnostic[];
  /** where `name` is written, for collision reports */
  name_position?: Position;
}

/** Parses one definition file into the entry an index is built from. */
export function parseEntry(file: DefinitionFile): ScanEntry {
  const parsed = parseToolDefinition(file);
  return {
    folder: file.folder,
    oid: file.oid,
    tool: parsed.tool,
    diagnostics: parsed.diagnostics,
    ...(parsed.namePosition ? { name_position: parsed.namePosition } : {}),
  };
}

/** Assembles an index from per-folder results: collisions keep the first by path order and report the rest. */
export function buildIndex(source: string, commit: string, entries: ScanEntry[], scannedAt: string): ToolIndex {
  const tools: ToolDefinition[] = [];
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  // names differing only in case would be the same tool to a human and to case-insensitive file systems
  const owners = new Map<string, ToolDefinition>();
  const aliasOwners = new Map<string, string>();
  for (const entry of entries) {
    for (const diagnostic of entry.diagnostics) (diagnostic.severity === 'error' ? errors : warnings).push(diagnostic);
    const tool = entry.tool;
    if (!tool) continue;
    const first = owners.get(tool.name.toLowerCase());
    if (first) {
      const { line, column } = entry.name_position ?? { line: 1, column: 1 };
      errors.push({
        file: tool.source.path, line, column, severity: 'error', code: 'DUPLICATE_NAME',
        message: `tool name '${tool.name}' is already taken by ${first.source.path}; the first by path order is kept: rename this one`,
      });
      continue;
    }
    owners.set(tool.name.toLowerCase(), tool);
    tools.push(tool);
  }
  const kept = tools.map((tool) => keepUniqueAliases(tool, owners, aliasOwners, warnings));
  kept.sort(compareToolNames);
  return { source, commit, tools: kept, errors, warnings, scanned_at: scannedAt };
}

// an alias that is another tool's name, or already another tool's alias, would make lookups ambiguous
function keepUniqueAliases(
  tool: ToolDefinition,
  owners: Map<string, ToolDefinition>,
  aliasOwners: Map<string, string>,
  warnings: Diagnostic[],
): ToolDefinition {
  const kept: string[] = [];
  for (const alias of tool.aliases) {
    const key = alias.toLowerCase();
    const nameOwner = owners.get(key);
    const aliasOwner = aliasOwners.get(key);
    const conflict = nameOwner && nameOwner !== tool ? nameOwner.name : aliasOwner && aliasOwner !== tool.name ? aliasOwner : undefined;
    if (conflict) {
      warnings.push({
        file: tool.source.path, line: 1, column: 1, severity: 'warning', code: 'ALIAS_CONFLICT',
        message: `alias '${alias}' also names tool '${conflict}'; it is ignored for '${tool.name}'`,
      });
      continue;
    }
    aliasOwners.set(key, tool.name);
    kept.push(alias);
  }
  return kept.length === tool.aliases.length ? tool : { ...tool, aliases: kept };
}
