import type { ToolIndex } from '../core/index.js';
import { anthropicToolSpec, openAiToolSpec, REGISTRY_NAME_META, type ExportFormat, type ToolSpecs } from '../export/index.js';
import type { SessionView } from './session-view.js';
import { catalogFor } from './tool-catalog.js';

/** What one view lists in one format: the meta-tools, then the registry tools it makes visible; and the way back to their registry names. */
export interface ListedSpecs<F extends ExportFormat = ExportFormat> {
  tools: Array<ToolSpecs[F]>;
  /** listed name → registry name of every registry tool listed */
  names: Record<string, string>;
}

/**
 * The tools a session's view (or, without a session, a principal's: `SessionManager.view(undefined, principal)`)
 * lists, as `format`'s specs, names within that format's limit (the providers refuse names past 64 characters, MCP
 * takes 128). One function for `GET /v1/sessions/:id/tools?format=` and `hldp export` as `HLDP_TOKEN`'s principal:
 * the CLI listed every tool, those the principal's rules forbid or hide included (review userZ11, U11-7).
 */
export function listedSpecs<F extends ExportFormat>(index: ToolIndex, view: SessionView, format: F): ListedSpecs<F> {
  const listed = catalogFor(index, format === 'mcp' ? 'mcp' : 'provider').toolsFor(view);
  const tools = format === 'mcp' ? listed : listed.map((tool) => (format === 'openai' ? openAiToolSpec : anthropicToolSpec)(tool.name, tool.description, tool.inputSchema));
  const names: Record<string, string> = {};
  for (const tool of listed) {
    const registryName = tool._meta?.[REGISTRY_NAME_META];
    if (typeof registryName === 'string') Object.defineProperty(names, tool.name, { value: registryName, enumerable: true, writable: true, configurable: true });
  }
  return { tools: tools as Array<ToolSpecs[F]>, names };
}
