import { eachTool, findTool, runLettingGo, runToEnd, toolCount, toolNameAt, toolsOf, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { exportNamesSteps, mcpMetaToolSpec, mcpToolSpec, META_TOOLS, NAME_LIMITS, RESERVED_NAMES, type McpToolSpec, type MetaTool } from '../export/index.js';
import { toolsAtPositions, type SessionView } from './session-view.js';

/** What a `tools/call` name stands for. */
export type CallTarget =
  | { kind: 'meta'; tool: MetaTool }
  /** a registry tool; an unlisted name passes through as is (a registry name or alias), and the gateway answers for it */
  | { kind: 'tool'; name: string };

/** The tools of one index as MCP lists them, and the way back from a listed name to the registry. */
export interface ToolCatalog {
  commit: string;
  /** the meta-tools, then every registry tool: made anew at each read, from each definition */
  readonly tools: McpToolSpec[];
  resolve(name: string): CallTarget;
  /** the listed name of a registry tool */
  listedName(registryName: string): string;
  /** what one session lists: the meta-tools, then the registry tools its view makes visible (made anew at each call) */
  toolsFor(view: SessionView): McpToolSpec[];
}

/** Whose name rules a catalog's listed names follow: MCP's (128 characters), or the providers' (OpenAI and Anthropic, 64). */
export type CatalogNames = 'mcp' | 'provider';

// an index never changes once built: its catalogs are computed once, and dropped with it
const catalogs: Record<CatalogNames, WeakMap<ToolIndex, ToolCatalog>> = { mcp: new WeakMap(), provider: new WeakMap() };
const LIMITS: Record<CatalogNames, number> = { mcp: NAME_LIMITS.mcp, provider: Math.min(NAME_LIMITS.openai, NAME_LIMITS.anthropic) };

/** The catalog of `index` whose names follow `names` (MCP's unless said), built on first use. */
export function catalogFor(index: ToolIndex, names: CatalogNames = 'mcp'): ToolCatalog {
  let catalog = catalogs[names].get(index);
  if (!catalog) {
    catalog = runToEnd(catalogSteps(index, LIMITS[names]));
    catalogs[names].set(index, catalog);
  }
  return catalog;
}

/**
 * What a name listed by any of the index's catalogs stands for: a meta-tool, or the registry tool it was listed
 * for (under MCP's names or the providers'); any other name passes through as is. For a surface (HTTP) whose
 * clients may have listed the tools in either form.
 */
export function resolveListedName(index: ToolIndex, name: string): CallTarget {
  const target = catalogFor(index).resolve(name);
  if (target.kind === 'meta' || target.name !== name || findTool(index, name)) return target;
  // only a name that is no registry name may be a provider's: its catalog is built for the first such name
  return catalogFor(index, 'provider').resolve(name);
}

/**
 * Builds the catalog of `index` ahead of its first request, a slice at a time, when the catalog of `previous`
 * was built (MCP is in use): a rescan then never leaves the first `tools/list` to build it in one go
 * (hundreds of milliseconds at 10,000 tools). Only tools that changed get new specs.
 */
export async function prepareCatalog(index: ToolIndex, previous: ToolIndex): Promise<void> {
  const built = catalogs.mcp;
  if (built.has(index) || !built.has(previous)) return;
  const catalog = await runLettingGo(catalogSteps(index, LIMITS.mcp));
  if (!built.has(index)) built.set(index, catalog);
}

const META_BY_NAME = new Map(META_TOOLS.map((tool) => [tool.name, tool]));
const META_SPECS = META_TOOLS.map((meta) => mcpMetaToolSpec(meta));

// a definition object never changes (the scanner keeps it while its folder does not): its spec is made once per
// listed name, and kept while the definition is (an index served from the scan cache makes each anew when read)
const specsByTool = new WeakMap<ToolDefinition, McpToolSpec>();

// tools handled between two stops of a sliced build
const STEP = 1000;

/**
 * The catalog keeps names, not specs: at 100,000 tools a spec per tool held every definition's schema and description
 * (issue #18), and a served index's definitions are made only when read. A list is made per request from the tools it
 * lists, one at a time; the names it lists them under, and the way back, are worked out once from the names alone.
 */
function* catalogSteps(index: ToolIndex, maxLength: number): Generator<void, ToolCatalog, void> {
  const sequence = toolsOf(index);
  const names = Array.from({ length: toolCount(index) }, (_, position) => toolNameAt(sequence, position)!);
  const exported = yield* exportNamesSteps(names, maxLength, RESERVED_NAMES);
  yield;
  // most tools are listed under their own name: only the others have an entry each way (at 100,000 tools three maps of
  // every name, and a digest of each spec's JSON, which nothing read, were a fifth of the catalog's memory: issue #18)
  const listedAs = new Map<string, string>();
  const renamed = new Map<string, string>();
  for (let position = 0; position < names.length; position++) {
    if (position % STEP === STEP - 1) yield;
    const name = names[position]!;
    const listed = exported.get(name)!;
    if (listed === name) continue;
    listedAs.set(name, listed);
    renamed.set(listed, name);
  }
  const specOf = (tool: ToolDefinition): McpToolSpec => {
    const name = listedAs.get(tool.name) ?? tool.name;
    let spec = specsByTool.get(tool);
    if (spec?.name !== name) {
      spec = mcpToolSpec(tool, name);
      specsByTool.set(tool, spec);
    }
    return spec;
  };
  return {
    commit: index.commit,
    get tools() {
      const tools = [...META_SPECS];
      for (const tool of eachTool(index)) tools.push(specOf(tool));
      return tools;
    },
    resolve(name) {
      // meta-tools first: a registry tool of the same name is listed with a fingerprint suffix, never shadowed
      const meta = META_BY_NAME.get(name);
      if (meta) return { kind: 'meta', tool: meta };
      // a listed name is its registry name unless renamed; any other name passes through as is
      return { kind: 'tool', name: renamed.get(name) ?? name };
    },
    listedName: (registryName) => listedAs.get(registryName) ?? registryName,
    toolsFor(view) {
      // not kept per view: with no toolset active a view lists every tool, and its list would hold every spec
      return [...META_SPECS, ...toolsAtPositions(index, view.positions.visible).map(specOf)];
    },
  };
}
