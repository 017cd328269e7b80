// Tool specs for agents: MCP, OpenAI and Anthropic shapes, provider-safe names, and annotations a definition justifies.
export { exportTools, metaToolRoutes, EXPORT_FORMATS, NAME_LIMITS, type ExportFormat, type ToolExport, type ToolSpecs } from './export-tools.js';
export { compressSchema, firstSentence, schemaBytes, SCHEMA_BUDGET_BYTES } from '../core/index.js';
export { exportedName, exportNames, exportNamesSteps, nameFingerprint, FINGERPRINT_LENGTH, PORTABLE_NAME } from './tool-names.js';
export { isReadOnly, toolHints, type ToolHints } from './tool-annotations.js';
export { APPROVAL_WAIT_TOOL, CALL_TOOL, callParams, CONFIRM_TOOL, FIND_TOOL, LOAD_TOOL, MAX_APPROVAL_WAIT_SECONDS, MCP_APPROVAL_WAIT_SECONDS, META_TOOLS, READ_SKILL_TOOL, RESERVED_NAMES, TOOLSET_TOOL, type MetaTool } from './meta-tools.js';
export {
  anthropicToolSpec,
  mcpMetaToolSpec,
  mcpToolSpec,
  openAiToolSpec,
  toolDescription,
  REGISTRY_NAME_META,
  type AnthropicToolSpec,
  type McpToolSpec,
  type OpenAiToolSpec,
} from './tool-specs.js';
