import { compressSchema, eachTool, toolNameAt, toolsOf, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { META_TOOLS, RESERVED_NAMES } from './meta-tools.js';
import { exportNames } from './tool-names.js';
import {
  anthropicToolSpec,
  mcpMetaToolSpec,
  mcpToolSpec,
  openAiToolSpec,
  toolDescription,
  type AnthropicToolSpec,
  type McpToolSpec,
  type OpenAiToolSpec,
} from './tool-specs.js';

/** The shapes tools can be exported in. */
export const EXPORT_FORMATS = ['openai', 'anthropic', 'mcp'] as const;

/** One of `openai`, `anthropic`, `mcp`. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Longest tool name each format accepts: OpenAI and Anthropic `^[a-zA-Z0-9_-]{1,64}$`, MCP (SEP-986) 128. */
export const NAME_LIMITS: Readonly<Record<ExportFormat, number>> = { openai: 64, anthropic: 64, mcp: 128 };

/** The spec type of each format. */
export interface ToolSpecs {
  openai: OpenAiToolSpec;
  anthropic: AnthropicToolSpec;
  mcp: McpToolSpec;
}

/** The tools of one index in one format, and the table that routes a provider's call back to the registry. */
export interface ToolExport<F extends ExportFormat = ExportFormat> {
  format: F;
  commit: string;
  /** meta-tools first, then the registry's tools in index order; paste as the request's `tools` */
  tools: Array<ToolSpecs[F]>;
  /** exported name → registry name for every registry tool: call it with `POST /v1/call {tool: <registry name>, params}` */
  names: Record<string, string>;
  /** exported name → HTTP route for the meta-tools (`tool_find`, `confirm`) */
  meta_tools: Record<string, string>;
}

/**
 * Every tool of `index` as `format` specs, names normalised to what the format accepts. The tools are read one at a
 * time (of an index served from the scan cache, none is kept: the specs are what is held).
 */
export function exportTools<F extends ExportFormat>(index: Pick<ToolIndex, 'commit' | 'tools'>, format: F): ToolExport<F> {
  const all = toolsOf(index);
  const exported = exportNames(Array.from({ length: all.length }, (_, position) => toolNameAt(all, position)!), NAME_LIMITS[format], RESERVED_NAMES);
  const names: Record<string, string> = {};
  const tools: Array<ToolSpecs[ExportFormat]> = META_TOOLS.map((meta) => specOf(format, meta.name, meta.description, meta.inputSchema, () => mcpMetaToolSpec(meta)));
  for (const tool of eachTool(index)) {
    const name = exported.get(tool.name)!;
    Object.defineProperty(names, name, { value: tool.name, enumerable: true, writable: true, configurable: true });
    tools.push(specOf(format, name, toolDescription(tool), compressSchema(tool.params_schema), () => mcpToolSpec(tool, name)));
  }
  return { format, commit: index.commit, tools: tools as Array<ToolSpecs[F]>, names, meta_tools: metaToolRoutes() };
}

/** Each meta-tool's HTTP route, by its name: an export's `meta_tools`. */
export function metaToolRoutes(): Record<string, string> {
  return Object.fromEntries(META_TOOLS.map((meta) => [meta.name, meta.route]));
}

function specOf(format: ExportFormat, name: string, description: string, schema: ToolDefinition['params_schema'], mcp: () => McpToolSpec): ToolSpecs[ExportFormat] {
  switch (format) {
    case 'openai':
      return openAiToolSpec(name, description, schema);
    case 'anthropic':
      return anthropicToolSpec(name, description, schema);
    case 'mcp':
      return mcp();
  }
}
