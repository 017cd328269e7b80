import type { GatewayConfig } from '../config/index.js';
import { filesWithErrors, formatDiagnostic, type Diagnostic, type ToolIndex } from '../core/index.js';
import { deputyTokenWarnings, PolicySet, undecidableApprovals } from '../policy/index.js';
import { unconfiguredMcpServerLines } from './mcp-server-warnings.js';
import { terminalSafe } from './terminal-safe.js';

/**
 * What a start says of the registry it serves against its config, as `hldp serve` and `hldp mcp` both say it:
 * `notes`, the definitions dropped or served in part (each file's errors in line order) and a broken policy's
 * consequence; `warnings`, no tools, an approve rule no one may decide, an apis token lent to agents, an MCP server
 * tools run on that the config lacks. `hldp mcp` said
 * none of it: the operator whose agent used stdio never heard that 4 tools were out, nor that a rule's requests could
 * only expire (review userZ10, U10-9). `degraded` is what tells the state again (serve: GET /healthz).
 */
export function registryStartLines(index: ToolIndex, config: GatewayConfig, degraded: string): { notes: string[]; warnings: string[] } {
  // a definition left out is named at start: "serving 1 tools" alone hides the two that were dropped; one served in
  // part (a toolset missing a member) is said to be served, not dropped (review userX, X2)
  const { dropped, partial } = filesWithErrors(index);
  // each file's errors in the order of its lines, as hldp validate gives them (review userY, Y7)
  const byLine = (files: readonly string[]) => (a: Diagnostic, b: Diagnostic): number => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.column - b.column;
  const errorsOf = (files: readonly string[]): string => index.errors.filter((error) => files.includes(error.file)).sort(byLine(files)).map((error) => `  ${terminalSafe(formatDiagnostic(error))}`).join('\n');
  const notes = [
    ...(dropped.length > 0 ? [`${dropped.length} definition(s) dropped, not served (${degraded}):\n${errorsOf(dropped)}`] : []),
    ...(partial.length > 0 ? [`${partial.length} definition(s) served in part, without what they name that is not there (${degraded}):\n${errorsOf(partial)}`] : []),
  ];
  // the consequence of a broken policy, said at start: else an author learnt it from a first call's 403 (review userZ5, F5)
  const refusing = PolicySet.of(index).brokenReason;
  if (refusing !== undefined) notes.push(terminalSafe(refusing));
  // an approve rule none of the configured principals may decide: its requests could only expire (review userV, V3)
  const undecidable = undecidableApprovals(index, config.principals).map((warning) => terminalSafe(formatDiagnostic(warning)));
  // an apis target holding an admin's or approver's token lends it to every agent allowed its tools (review userZ4, F6)
  const deputies = deputyTokenWarnings(config.apis, config.principals).map(terminalSafe);
  // tools on an MCP server this config lacks: said at start, not at an agent's first call (review userZ11, U11-23)
  const unconfigured = unconfiguredMcpServerLines(index, config).map(terminalSafe);
  return { notes, warnings: [...index.warnings.filter((warning) => warning.code === 'NO_TOOLS').map((warning) => terminalSafe(warning.message)), ...undecidable, ...deputies, ...unconfigured] };
}
