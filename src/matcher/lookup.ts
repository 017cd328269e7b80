import { aliasKey, eachToolAliases, foldedKey, findTool, runToEnd, toolNameAt, toolsOf, type NearMiss, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { nearNames, type AliasesByPosition } from './near-names.js';
import type { ParamProblem, ParamsValidator } from './validate-params.js';

/** What to do when a called name is near no tool, for whichever surface asked: an agent over HTTP or MCP has no `hldp` (review userU, F8). */
export const LIST_THE_TOOLS = 'match by intent instead, or list the tools (GET /v1/tools over HTTP, tools/list over MCP, `hldp list`)';

/** What an exact call `{tool, params}` resolves to. */
export type LookupResult =
  /** the tool exists and the params fit its schema; `data` has the defaults filled in */
  | { found: true; valid: true; tool: ToolDefinition; data: Record<string, unknown> }
  /** the tool exists but the params do not fit: each offending param named, and the schema */
  | {
      found: true;
      valid: false;
      tool: ToolDefinition;
      code: 'INVALID_PARAMS';
      errorMessage: string;
      problems: ParamProblem[];
      /** the tool's params schema on one line */
      schema: string;
    }
  /** no tool has that name or alias; at most three near names */
  | { found: false; code: 'TOOL_NOT_FOUND'; errorMessage: string; near: NearMiss[] };

/** Resolves names and aliases of one index to tools. */
export interface ToolResolver {
  resolve(name: string): ToolDefinition | undefined;
  /** every alias as written, with its tool's position: what near names are read from besides the names */
  aliases(): AliasesByPosition;
}

/**
 * A resolver for an index: exact name first, then an alias that only one tool claims, then a name or alias that only
 * one tool's is once both are folded (see `foldedKey`). The alias table is made on the first name that is not a
 * tool's (a CLI call by name never needs it: tens of milliseconds at 10,000 tools).
 */
export function createToolResolver(index: ToolIndex): ToolResolver {
  let aliases: AliasTable | undefined;
  return {
    resolve(name) {
      return findTool(index, name) ?? byAlias(index, (aliases ??= runToEnd(aliasTableSteps(index))), name);
    },
    aliases: () => (aliases ??= runToEnd(aliasTableSteps(index))).written,
  };
}

/**
 * The name the store keeps a call of `name` under, and so what a filter naming a tool looks for: the tool it resolves
 * to (a call by an alias, or by any spelling that folds to a name, is kept under the tool's name), else `name` as
 * given (an unknown tool's rejection is kept as asked). One rule for `GET /v1/rejections?tool=`, the console and
 * `hldp receipts --tool` (review userZ11, U11-13).
 */
export function keptName(resolver: Pick<ToolResolver, 'resolve'>, name: string): string {
  return resolver.resolve(name)?.name ?? name;
}

/** `createToolResolver` with its alias table made now, stopping every thousand tools (normalising aliases takes tens of milliseconds at 10,000). */
export function* toolResolverSteps(index: ToolIndex): Generator<void, ToolResolver, void> {
  const aliases = yield* aliasTableSteps(index);
  return {
    resolve(name) {
      return findTool(index, name) ?? byAlias(index, aliases, name);
    },
    aliases: () => aliases.written,
  };
}

// A called name is compared, when neither matched as written, by `foldedKey` (NFKC, letter case, white space, ё as е).
// Names were case-sensitive while aliases were not ('WC' ran word-count, 'Word-Count' was TOOL_NOT_FOUND), and
// 'подсчет слов' missed the alias 'подсчёт слов' though Russian is mostly typed with е and the matcher reads them alike
// (review userZ10, U10-10). Unambiguous: case twins, and an alias that folds to another tool's name or alias, are
// refused at the scan by the same fold; policies match names in any letter case; a key two tools share names neither.
// the tool an alias names, if one tool alone claims it; else the tool whose name or alias alone folds to it
function byAlias(index: ToolIndex, table: AliasTable, name: string): ToolDefinition | undefined {
  const key = aliasKey(name);
  // the name of a definition in the repository that is broken is that tool, not served: folded, 'hello' ran its case
  // twin 'Hello', kept by path order, where the caller was told TOOL_BROKEN before names resolved in any case
  if (!table.byKey.has(key) && table.broken.has(`tools/${name}/TOOL.hdlp`)) return undefined;
  // an alias two tools claim (null) stays unresolved: folding does not pick one of them
  const position = table.byKey.has(key) ? table.byKey.get(key) : table.byFold.get(foldedKey(name));
  return position === undefined || position === null ? undefined : toolsOf(index).at(position);
}

// an index's aliases: by key and, with its names, by folded key, for resolving; as written, for near names
interface AliasTable {
  byKey: Map<string, number | null>;
  byFold: Map<string, number | null>;
  written: AliasesByPosition;
  /** the files of the tool definitions the index holds errors of (`tools/<folder>/TOOL.hdlp`): read once, not on each miss */
  broken: ReadonlySet<string>;
}

// each alias to the position of the tool that claims it: the table holds no tool (of a registry made from a scan
// cache, a tool is made when read and not held; at 100,000 tools the table held every definition)
function* aliasTableSteps(index: ToolIndex): Generator<void, AliasTable, void> {
  const byKey = new Map<string, number | null>();
  const byFold = new Map<string, number | null>();
  // a key two tools claim names neither: null marks it ambiguous
  const claim = (map: Map<string, number | null>, key: string, position: number): void => void map.set(key, map.has(key) && map.get(key) !== position ? null : position);
  const texts: string[] = [];
  const positions: number[] = [];
  const tools = toolsOf(index);
  // of a registry served from the scan cache, read from the aliases it keeps: no tool made (else each made once and let go)
  let position = -1;
  for (const aliases of eachToolAliases(index)) {
    if (++position % 1000 === 999) yield;
    const name = toolNameAt(tools, position);
    if (name !== undefined) claim(byFold, foldedKey(name), position);
    for (const alias of aliases) {
      const key = aliasKey(alias);
      claim(byKey, key, position);
      claim(byFold, key.replace(/ё/g, 'е'), position);
      // the key itself where the alias is written as its key: one string held for both (200,000 aliases at 100,000 tools)
      texts.push(key === alias ? key : alias);
      positions.push(position);
    }
  }
  const broken = new Set<string>();
  for (const diagnostic of index.errors) if (diagnostic.file.startsWith('tools/') && diagnostic.file.endsWith('/TOOL.hdlp')) broken.add(diagnostic.file);
  return { byKey, byFold, written: { texts, positions }, broken };
}

/** Looks a tool up by name or alias and validates the params against its schema. */
export function lookupTool(
  index: ToolIndex,
  resolver: ToolResolver,
  validator: ParamsValidator,
  name: string,
  params: unknown,
): LookupResult {
  const tool = resolver.resolve(name);
  if (tool === undefined) {
    const near = nearNames(toolsOf(index), resolver.aliases(), name);
    const hint =
      near.length > 0
        ? `did you mean ${near.map((miss) => `'${miss.name}'`).join(', ')}?`
        : LIST_THE_TOOLS;
    return { found: false, code: 'TOOL_NOT_FOUND', errorMessage: `unknown tool '${name}'; ${hint}`, near };
  }
  const checked = validator.validate(tool, params);
  if (checked.valid) return { found: true, valid: true, tool, data: checked.data };
  return {
    found: true,
    valid: false,
    tool,
    code: 'INVALID_PARAMS',
    errorMessage: checked.errorMessage,
    problems: checked.problems,
    schema: checked.schema,
  };
}
