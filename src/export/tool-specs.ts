import { compressSchema, type JsonSchema, type ToolDefinition } from '../core/index.js';
import { CONFIRM_TOOL, type MetaTool } from './meta-tools.js';
import { toolHints, type ToolHints } from './tool-annotations.js';

/** The `_meta` key of a listed MCP tool that holds its registry name. */
export const REGISTRY_NAME_META = 'hldp/name';

/** A tool as MCP `tools/list` lists it. */
export interface McpToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: ToolHints;
  _meta?: Record<string, unknown>;
}

/** A tool as the OpenAI Chat Completions `tools` array takes it. */
export interface OpenAiToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

/** A tool as the Anthropic Messages `tools` array takes it. */
export interface AnthropicToolSpec {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/** The intent, and for a `require_confirm` tool how its call completes: small models read this, so it stays one or two sentences. */
export function toolDescription(tool: ToolDefinition): string {
  if (!tool.constraints.require_confirm) return tool.intent;
  return `${tool.intent} Needs confirmation: the call runs nothing and returns a token; pass it to the ${CONFIRM_TOOL.name} tool to run it.`;
}

/** A registry tool for MCP, under its exported name, with its registry name in `_meta`. */
export function mcpToolSpec(tool: ToolDefinition, name: string): McpToolSpec {
  return {
    name,
    title: tool.display,
    description: toolDescription(tool),
    // over 5,000 bytes, shrunk for the listing; calls are still validated against the whole schema
    inputSchema: compressSchema(tool.params_schema) as McpToolSpec['inputSchema'],
    annotations: toolHints(tool),
    _meta: { [REGISTRY_NAME_META]: tool.name },
  };
}

/** A meta-tool for MCP. */
export function mcpMetaToolSpec(tool: MetaTool): McpToolSpec {
  return { name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations };
}

/** A registry tool or meta-tool as an OpenAI function. */
export function openAiToolSpec(name: string, description: string, parameters: JsonSchema): OpenAiToolSpec {
  return { type: 'function', function: { name, description, parameters } };
}

/** A registry tool or meta-tool as an Anthropic tool. */
export function anthropicToolSpec(name: string, description: string, inputSchema: JsonSchema): AnthropicToolSpec {
  return { name, description, input_schema: inputSchema };
}
