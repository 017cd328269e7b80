// Repository sources (folder, git via isomorphic-git), parsing and validation of TOOL.hdlp, the index and its cache.
export { Scanner, scanOnce } from './scanner.js';
export { warmUpParserSteps } from './warm-up-parser.js';
export { defaultCacheDir, type RepositoryOptions } from './open-source.js';
export { parseToolDefinition, type DefinitionFile, type ParsedDefinition } from './parse-tool-definition.js';
export { normaliseParamsSchema } from './params-schema.js';
export { MAX_DEFINITION_BYTES, MAX_DEFINITION_DEPTH, tooLargeMessage, type ParseOptions } from './yaml-mapping.js';
export { readBounded } from './sources/read-bounded.js';
export { isEntryFolderSlip, mayBePolicies, rootPolicyStrays, strayPolicies, type RootItem } from './sources/stray-policies.js';
export { FOLDER_KINDS, misnamedDefinition, unreadDefinition } from './sources/missing-definition.js';
export { ScanError, type ScanErrorCode } from './scan-error.js';
export type { PushHint } from './sources/source.js';
export { TOOL_SCHEMA_URL } from './tool-schema.js';
export { compileShapeChecker, type SchemaProblem, type ShapeChecker, type ShapeCheckerOptions } from './shape-checker.js';
export { YamlLocator, type Position } from './yaml-locator.js';
export { yamlModule } from './yaml-module.js';
export { unknownTags, YAML_OPTIONS } from './yaml-syntax-message.js';
export { validateDefinitionFiles } from './validate-files.js';
export { nearest } from './check-members.js';
