// Agent sessions: toolsets and their TTL, the visibility lattice, the meta-tools' logic, skills, the budgeted prompt block, TOOL_CALL lines.
export { SessionManager, type CallDecision, type Explanation, type SessionRegistry, type SessionsOptions } from './session-manager.js';
export { DEFAULT_SESSIONS_CONFIG, type SessionsConfig } from './sessions-config.js';
export { systemClock, type Clock } from './clock.js';
export { MemorySessionStore, type SessionStore } from './session-store.js';
export { StoredSessionStore, type SessionRow, type SessionRows, type StoredSessionsOptions } from './stored-session-store.js';
export type { ActiveToolset, LoadedTool, SessionState, ToolsetScope } from './session-state.js';
export { decideVisibility, denyListRights, type Attention, type RightsLayer, type Subject, type ToolState, type Visibility } from './visibility.js';
export { RegistryView } from './registry-view.js';
export { computeView, type SessionView } from './session-view.js';
export { wholeListing, wholeListingWarning, type WholeListing } from './listing-size.js';
export { catalogFor, prepareCatalog, resolveListedName, type CallTarget, type CatalogNames, type ToolCatalog } from './tool-catalog.js';
export type { MetaAnswer } from './meta-answer.js';
export type { ToolsetRequest } from './toolset-tool.js';
export { fitToBudget, countChars, type BudgetLine, type BudgetSection, type FittedBlock } from './budget.js';
export { promptBudget, renderPromptBlock, MAX_BUDGET_CHARS, WINDOW_SHARE, type PromptBlock, type PromptInput } from './prompt-block.js';
export type { PromptOptions } from './session-prompt.js';
export { signature, signatureLine } from './signatures.js';
export { parseToolCall, parseToolCalls, renderToolCall, describeSchema, TOOL_CALL_PREFIX, type ParsedToolCall, type ToolCallSchemas } from './tool-call-line.js';
