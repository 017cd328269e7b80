import type { Diagnostic } from './diagnostic.js';
import type { ToolIndex } from './tool-index.js';

/** The errors of the definition file a tool of that name would have (`tools/<name>/TOOL.hdlp`), if any. */
export function brokenDefinition(index: Pick<ToolIndex, 'errors'>, name: string): Diagnostic[] {
  const file = `tools/${name}/TOOL.hdlp`;
  const lower = file.toLowerCase();
  return index.errors.filter((diagnostic) => diagnostic.file === file || diagnostic.file.toLowerCase() === lower);
}

/** How a toolset's error says that a member is a tool whose own definition is broken: not served, yet not unknown. */
export const BROKEN_MEMBER = 'a tool whose definition is broken, so it is not served';

/**
 * What a call, or a `tool_load`, of a tool whose `TOOL.hdlp` is broken is told: the first error's file:line:col,
 * worded the same wherever the name is asked for (review W, W6).
 */
export function brokenToolMessage(name: string, diagnostics: readonly Diagnostic[]): string {
  const first = diagnostics[0]!;
  return `tool '${name}' is in the repository but its definition is broken, so it is not served: ${first.file}:${first.line}:${first.column}: ${first.message}` +
    (diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '') + '; fix it (hldp validate), push, and rescan';
}

/**
 * The files holding errors, split: `dropped`, whose definition is not served, and `partial`, served all the same (a
 * toolset naming a tool the registry lacks is served with its other members). The start log called both "dropped".
 */
export function filesWithErrors(index: Pick<ToolIndex, 'errors' | 'toolsets'>): { dropped: string[]; partial: string[] } {
  const served = new Set(index.toolsets.map((toolset) => toolset.source.path));
  const files = [...new Set(index.errors.map((error) => error.file))];
  return { dropped: files.filter((file) => !served.has(file)), partial: files.filter((file) => served.has(file)) };
}
