// The store of what gateway instances share: receipts (a hash chain), approval requests, rejected calls, MCP sessions, and a bus
// between instances; embedded SQLite by default, PostgreSQL to scale out.
export type {
  ChainBreak,
  ChainLink,
  ChainReport,
  DeploymentSecrets,
  EventLog,
  InstanceRoll,
  LiveInstance,
  McpSessionRecord,
  McpSessionStore,
  NewEvent,
  PruneResult,
  ReceiptPage,
  ReceiptQuery,
  ReceiptStore,
  RejectionQuery,
  RejectionStore,
  RetentionPolicy,
  Store,
  UsageLog,
  UsageQuery,
  StoreBus,
  StoreHealth,
  StoredEvent,
} from './store.js';
export type {
  ApprovalDecision,
  ApprovalFiler,
  ApprovalPosition,
  DecisionPosition,
  ApprovalQuery,
  ApprovalRecord,
  ApprovalRun,
  ApprovalRunner,
  ApprovalStatus,
  ApprovalStore,
  ApprovalTerms,
  JudgedAgainst,
  RunPlace,
  ApprovalVia,
  NewApproval,
  WaitingApprovals,
} from './approval-store.js';
export { isRawField, RAW_FIELDS, type RawField, type ReceiptExcerpt, type ReceiptSummary, type ReceiptSummaryPage } from './receipt-summary.js';
export type { AgentSessionRecord, AgentSessionStore } from './agent-sessions.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export type { PostgresStoreOptions } from './postgres/postgres-store.js';
export { openPostgresStore, openStore, type StoreOptions } from './open-store.js';
export { StoreError } from './store-error.js';
export { describeUrl } from './postgres/describe-url.js';
export { canonicalJson, hashParams } from './canonical-params.js';
export { canonicalReceiptText, GENESIS, linkHash } from './receipt-chain.js';
export { schedulePruning, scheduleRetention } from './retention.js';
export { SQLITE_MIGRATIONS } from './sqlite-schema.js';
export { POSTGRES_MIGRATIONS } from './postgres/postgres-migrations.js';
export { USAGE_EVENTS_KEPT } from './sqlite-usage.js';
