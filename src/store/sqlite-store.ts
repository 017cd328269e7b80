import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { LocalBus } from './local-bus.js';
import { SqliteEventLog } from './sqlite-events.js';
import { SqliteApprovalStore } from './sqlite-approvals.js';
import { SqliteMcpSessionStore } from './sqlite-mcp-sessions.js';
import { SqliteAgentSessionStore } from './sqlite-agent-sessions.js';
import { SqliteReceiptStore } from './sqlite-receipts.js';
import { ReceiptWriterThread, writerThreadAvailable } from './receipt-writer-thread.js';
import { SqliteRejectionStore } from './sqlite-rejections.js';
import { SqliteDeploymentSecrets } from './sqlite-secrets.js';
import { SqliteSignOuts } from './sqlite-sign-outs.js';
import { SqliteUsageLog } from './sqlite-usage.js';
import { migrate } from './sqlite-schema.js';
import type { Store } from './store.js';

/** Where and how the embedded store keeps its data. */
export interface SqliteStoreOptions {
  /** the database file (its folder is created); `:memory:` for a throwaway store */
  path: string;
  /** the clock in ms since the epoch, for expiry and retention; injectable for tests */
  now?: () => number;
}

// The file holds every receipt and the console's signing key: a folder we make is 0700, a database we make 0600.
// SQLite gives its -wal, -shm and -journal files the database file's own mode, so they are private too.
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
}

/** Opens (creating or migrating) the embedded SQLite store, in WAL mode so that several processes can share it. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.path !== ':memory:') createPrivately(options.path);
  const database = new BetterSqlite3(options.path);
  try {
    database.pragma('journal_mode = WAL');
    // a receipt is on disk before the call that made it returns
    database.pragma('synchronous = FULL');
    // other gateway processes may hold the write lock for a moment
    database.pragma('busy_timeout = 5000');
    migrate(database);
  } catch (error) {
    database.close();
    throw error;
  }
  const now = options.now ?? Date.now;
  // a file's large receipts are written by a thread of their own, on a connection of its own (an in-memory store has no second connection)
  const thread = options.path !== ':memory:' && writerThreadAvailable() ? new ReceiptWriterThread({ sqlite: options.path }) : undefined;
  const receipts = new SqliteReceiptStore(database, { path: options.path, now, ...(thread ? { thread } : {}) });
  const events = new SqliteEventLog(database);
  return {
    kind: 'sqlite',
    receipts,
    approvals: new SqliteApprovalStore(database, { now }),
    rejections: new SqliteRejectionStore(database, { now }),
    mcpSessions: new SqliteMcpSessionStore(database, { now }),
    agentSessions: new SqliteAgentSessionStore(database),
    usage: new SqliteUsageLog(database),
    bus: new LocalBus(),
    events,
    secrets: new SqliteDeploymentSecrets(database, { now }),
    signOuts: new SqliteSignOuts(database, { now }),
    health: async () => {
      try {
        database.prepare('SELECT 1').get();
        return { ok: true };
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      }
    },
    close: async () => {
      await receipts.close();
      await events.flush();
      database.close();
    },
  };
}
