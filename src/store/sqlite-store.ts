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
import { SqliteInstances } from './sqlite-instances.js';
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

// how long a process waits for another that holds the store's lock: SQLite's busy timeout, and the WAL conversion's own
const PATIENCE_MS = 5000;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Puts the file in WAL mode. Converting takes an exclusive lock and SQLite runs no busy handler for it: a process opening
 * a fresh store while another converted or migrated it got "database is locked" at once (two `hldp serve` started
 * together on CI). WAL is the file's own lasting mode, so the conversion happens once; while another process holds the
 * lock it is tried again, with growing pauses, for as long as any other statement would wait.
 */
function useWriteAheadLog(database: BetterSqlite3.Database, path: string): void {
  const deadline = Date.now() + PATIENCE_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      // a file system without shared memory keeps the rollback journal, as before: SQLite answers its old mode
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`the store ${path} stayed locked by another process for ${PATIENCE_MS / 1000} s while this one set it up (SQLite's journal_mode = WAL): is another program holding it open in a transaction?`);
    }
    Atomics.wait(PAUSE, 0, 0, pause);
  }
}

/** Opens (creating or migrating) the embedded SQLite store, in WAL mode so that several processes can share it. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.path !== ':memory:') createPrivately(options.path);
  const database = new BetterSqlite3(options.path, { timeout: PATIENCE_MS });
  let schemaSteps: Array<{ version: number; name: string }>;
  try {
    // other gateway processes may hold the write lock for a moment
    database.pragma(`busy_timeout = ${PATIENCE_MS}`);
    if (options.path !== ':memory:') useWriteAheadLog(database, options.path);
    // a receipt is on disk before the call that made it returns
    database.pragma('synchronous = FULL');
    schemaSteps = migrate(database);
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
    now,
    schemaSteps,
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
    instances: new SqliteInstances(database, { now }),
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
