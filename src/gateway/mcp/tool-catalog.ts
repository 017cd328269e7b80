import { createHash } from 'node:crypto';
import type { ToolIndex } from '../../core/index.js';
import { exportTools, META_TOOLS, type McpToolSpec, type MetaTool } from '../../export/index.js';
import type { SessionView } from '../../sessions/index.js';

/** What a `tools/call` name stands for. */
export type CallTarget =
  | { kind: 'meta'; tool: MetaTool }
  /** a registry tool; an unlisted name passes through as is (a registry name or alias), and the gateway answers for it */
  | { kind: 'tool'; name: string };

/** The tools of one index as MCP lists them, and the way back from a listed name to the registry. */
export interface ToolCatalog {
  commit: string;
  /** the meta-tools, then every registry tool */
  tools: McpToolSpec[];
  /** a digest of the listed tools: equal digests, identical `tools/list` answers */
  digest: string;
  resolve(name: string): CallTarget;
  /** the listed name of a registry tool */
  listedName(registryName: string): string;
  /** what one session lists: the meta-tools, then the registry tools its view makes visible */
  toolsFor(view: SessionView): McpToolSpec[];
}

// an index never changes once built: its catalog is computed once, and dropped with it
const catalogs = new WeakMap<ToolIndex, ToolCatalog>();

/** The catalog of `index`, built on first use. */
export function catalogFor(index: ToolIndex): ToolCatalog {
  let catalog = catalogs.get(index);
  if (!catalog) {
    catalog = buildCatalog(index);
    catalogs.set(index, catalog);
  }
  return catalog;
}

const META_BY_NAME = new Map(META_TOOLS.map((tool) => [tool.name, tool]));

function buildCatalog(index: ToolIndex): ToolCatalog {
  const exported = exportTools(index, 'mcp');
  const listed = new Map(Object.entries(exported.names).map(([listedName, registryName]) => [registryName, listedName]));
  const metaSpecs = exported.tools.slice(0, META_TOOLS.length);
  // exportTools lists the meta-tools, then the index's tools in index order
  const specs = new Map(index.tools.map((tool, position) => [tool.name, exported.tools[META_TOOLS.length + position]!]));
  // a view never changes once computed, and sessions with the same view share it: one list per view
  const perView = new WeakMap<SessionView, McpToolSpec[]>();
  return {
    commit: index.commit,
    tools: exported.tools,
    digest: createHash('sha256').update(JSON.stringify(exported.tools)).digest('hex'),
    resolve(name) {
      // meta-tools first: a registry tool of the same name is listed with a fingerprint suffix, never shadowed
      const meta = META_BY_NAME.get(name);
      if (meta) return { kind: 'meta', tool: meta };
      // own names only: `__proto__` or `constructor` name no tool unless one is listed under it
      return { kind: 'tool', name: Object.hasOwn(exported.names, name) ? exported.names[name]! : name };
    },
    listedName: (registryName) => listed.get(registryName) ?? registryName,
    toolsFor(view) {
      let tools = perView.get(view);
      if (!tools) {
        tools = [...metaSpecs, ...view.visible.map((tool) => specs.get(tool.name)!)];
        perView.set(view, tools);
      }
      return tools;
    },
  };
}
