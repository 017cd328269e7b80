import { createHash } from 'node:crypto';
import type { ToolIndex } from '../../core/index.js';
import { CONFIRM_TOOL, exportTools, FIND_TOOL, type McpToolSpec } from '../../export/index.js';

/** What a `tools/call` name stands for. */
export type CallTarget =
  | { kind: 'find' }
  | { kind: 'confirm' }
  /** a registry tool; an unlisted name passes through as is (a registry name or alias), and the gateway answers for it */
  | { kind: 'tool'; name: string };

/** The tools of one index as MCP lists them, and the way back from a listed name to the registry. */
export interface ToolCatalog {
  commit: string;
  tools: McpToolSpec[];
  /** a digest of the listed tools: equal digests, identical `tools/list` answers */
  digest: string;
  resolve(name: string): CallTarget;
  /** the listed name of a registry tool */
  listedName(registryName: string): string;
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

function buildCatalog(index: ToolIndex): ToolCatalog {
  const exported = exportTools(index, 'mcp');
  const listed = new Map(Object.entries(exported.names).map(([listedName, registryName]) => [registryName, listedName]));
  return {
    commit: index.commit,
    tools: exported.tools,
    digest: createHash('sha256').update(JSON.stringify(exported.tools)).digest('hex'),
    resolve(name) {
      // meta-tools first: a registry tool of the same name is listed with a fingerprint suffix, never shadowed
      if (name === FIND_TOOL.name) return { kind: 'find' };
      if (name === CONFIRM_TOOL.name) return { kind: 'confirm' };
      return { kind: 'tool', name: exported.names[name] ?? name };
    },
    listedName: (registryName) => listed.get(registryName) ?? registryName,
  };
}
