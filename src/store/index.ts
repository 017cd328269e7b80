// The store of what gateway instances share: receipts and pending confirmations (embedded SQLite by default).
export type {
  ConfirmationBinding,
  ConfirmationLookup,
  ConfirmationRefusal,
  ConfirmationRequest,
  ConfirmationStore,
  PendingConfirmation,
  ReceiptQuery,
  ReceiptStore,
  Store,
} from './store.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { DEFAULT_CONFIRMATION_TTL_MS } from './sqlite-confirmations.js';
export { canonicalJson, hashParams } from './canonical-params.js';
