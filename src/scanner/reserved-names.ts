import { RESERVED_TOOL_NAMES } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

const RESERVED = new Set(RESERVED_TOOL_NAMES);
const LISTED = RESERVED_TOOL_NAMES.join(', ');

/** A definition's `name` or `aliases` that take a name the gateway keeps for its meta-tools, each where it is written. */
export function reservedNameProblems(value: Record<string, unknown>): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  if (typeof value.name === 'string' && RESERVED.has(value.name)) {
    problems.push({
      path: ['name'],
      atKey: false,
      message: `'${value.name}' is a name the gateway keeps for its own meta-tools (${LISTED}): a tool so named would be shadowed over MCP and in sessions; rename the tool and its folder`,
    });
  }
  const aliases = Array.isArray(value.aliases) ? (value.aliases as unknown[]) : [];
  aliases.forEach((alias, position) => {
    if (typeof alias === 'string' && RESERVED.has(alias)) {
      problems.push({
        path: ['aliases', position],
        atKey: false,
        message: `alias '${alias}' is a name the gateway keeps for its own meta-tools (${LISTED}): a call by it would reach the meta-tool over MCP and in sessions; remove the alias`,
      });
    }
  });
  return problems;
}
