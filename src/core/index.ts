// The domain types every other folder speaks, and pure helpers; no I/O.
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  EXECUTOR_NAMES,
  type ArgvTemplate,
  type ExecutorName,
  type ForgejoSpec,
  type GatekeeperSpec,
  type HttpSpec,
  type JsonSchema,
  type McpSpec,
  type ShellSpec,
  type ToolConstraints,
  type ToolDefinition,
  type ToolSource,
} from './tool-definition.js';
export { byPlace, formatDiagnostic, type Diagnostic, type DiagnosticCode } from './diagnostic.js';
export { MAX_COMPILE_UNITS, paramsCompileCost, type CompileCost } from './params-compile-cost.js';
export { MAX_CHECKS_PER_VALUE, paramsSchemaCost, type SchemaCost, type SchemaCostProblem } from './params-schema-cost.js';
export { RESERVED_TOOL_NAMES } from './reserved-tool-names.js';
export { refusedHttpHeader } from './http-headers.js';
export { fairEvictee } from './fair-eviction.js';
export { loadOnce } from './load-once.js';
export { deadlineSignal, type DeadlineSignal } from './deadline-signal.js';
export { markPatchedFrom, takePatchedFrom } from './previous-scan.js';
export {
  compareToolNames,
  eachTool,
  eachToolAliases,
  findTool,
  indexWith,
  knownMcpServers,
  knownParamLists,
  mcpServerList,
  type McpServerList,
  sameToolsAt,
  toolCount,
  toolNameAt,
  toolsOf,
  withLazyTools,
  type ToolIndex,
  type ContestedName,
  contestedMessage,
  type ToolSequence,
} from './tool-index.js';
export { BROKEN_MEMBER, brokenDefinition, brokenToolMessage, filesWithErrors } from './broken-definition.js';
export { SECRET_NAME, secretsHeldWords } from './secret-names.js';
export { scanProblemsFor, type ScanProblems } from './scan-problems.js';
export { declaredParams, type DeclaredParams } from './declared-params.js';
export { declaredText, declaredTextAt, paramListsOf, paramListsText, parseParamLists, ParamListsBuilder, unionOf, type ParamLists, type ParamsUnion } from './param-lists.js';
export { didYouMean, editDistance, nearWord, nearWords } from './near-word.js';
export {
  ENTRY_KINDS,
  ENTRY_LAYOUT,
  entryPath,
  type EntryKind,
  type EntrySource,
  type ApprovalRule,
  type FilePosition,
  type ParamCondition,
  type PolicyAccessRule,
  type PolicyDecisionKind,
  type PolicyDefinition,
  type SkillDefinition,
  type ToolsetDefinition,
} from './registry-entries.js';
export { CALLING_ROLES, ROLES, describeGate, passesGate, type AccessGate, type Role } from './access.js';
export type { ErrorCode } from './error-code.js';
export {
  DEFAULT_RESOURCE_LIMITS,
  formatByteSize,
  parseByteSize,
  resolveToolSandbox,
  type DeclaredSandbox,
  type ResourceLimitName,
  type ResourceLimits,
  type ToolSandbox,
} from './tool-sandbox.js';
export { ceilingDefaults, ceilingProblems, type CeilingProblem, type SandboxCeiling } from './sandbox-ceiling.js';
export { markNotStored, wasNotStored, type CallDeadline, type ExecutionResult, type Receipt, type ReceiptApproval, type ReceiptAttachment, type ReceiptSource, type TimeoutSource } from './receipt.js';
export { receiptPiecesSeen, receiptSeen, receiptTextSeen, registrySourceSeen, sourceSeen, SOURCE_PATH_WITHHELD, SOURCE_WITHHELD, type TextPieces } from './receipt-source.js';
export type { ProgressUpdate } from './progress.js';
export type { BrokenMatch, Candidate, Contest, MatchConfidence, MatchResult, MatchStage, NearMiss } from './match-result.js';
export { MAX_INTENT_CHARACTERS } from './match-result.js';
export { DEFAULT_LIMIT, isMatchLimit, limitRefusal, LIMIT_SCHEMA, MAX_LIMIT, withLimitRefusal } from './match-limit.js';
export type { MatchOutcome, UsageEvent } from './usage-event.js';
export type { RejectedCall } from './rejected-call.js';
export { PLACEHOLDER_PATTERN, listPlaceholders, wholePlaceholder, type Placeholder } from './template.js';
export { isCodeBearingVariable, parameterVariableProblem, scriptVariableName, sharedScriptVariables, startupVariableProblem } from './environment-names.js';
export { isLoopback } from './loopback.js';
export { exceedsDepth, MAX_JSON_DEPTH } from './json-depth.js';
export { letGo, runLettingGo, runToEnd, SLICE_MS } from './letting-go.js';
export { describeHidden, HIDDEN_CHARACTER_CLASS, hiddenCharacters, INVISIBLE_CHARACTERS, mapHidden, mayHoldHidden, revealHidden, visibleEscape, type HiddenCharacter } from './hidden-characters.js';
export { FORGEJO_METHOD_NAMES, FORGEJO_METHOD_PARAMETERS, GATEKEEPER_METHOD_NAMES } from './executor-methods.js';
export { schemaGraph, type SchemaGraphNode } from './schema-graph.js';
export { aliasKey, foldedKey, MOST_REMOVED, removedAlias, removedToolWords, removedTools, removedWhen, type RemovedTool, type RemovedTools } from './removed-tools.js';
export { compressSchema, firstSentence, schemaBytes, SCHEMA_BUDGET_BYTES } from './compress-schema.js';
export { shellWord } from './shell-word.js';
