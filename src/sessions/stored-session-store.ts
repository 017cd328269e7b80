import type { ActiveToolset, LoadedTool, SessionState } from './session-state.js';
import type { SessionStore } from './session-store.js';

/** A session as a row of the shared store: its state as JSON text, and when it was last used. */
export interface SessionRow {
  id: string;
  state: string;
  seen_ms: number;
}

/** The rows the store keeps (the store's `agentSessions`; the gateway wires them in). */
export interface SessionRows {
  get(id: string): Promise<SessionRow | undefined>;
  put(row: SessionRow): Promise<void>;
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
  list(since: number, limit: number): Promise<SessionRow[]>;
  purge(before: number): Promise<number>;
}

/** How a stored session store behaves. */
export interface StoredSessionsOptions {
  /** a session unused this long is forgotten: when next looked up, and by the purge */
  idleMs: number;
  now: () => number;
  /** a write that failed (the session stays as it was in the store); default: none */
  onError?: (error: Error, what: string) => void;
}

// the newest version of the row's text this process knows, per session, so that a read-only request writes nothing
const KNOWN_KEPT = 10_000;
// sessions idle beyond `idleMs` are deleted at most this often, by a write that opens a session (no timers)
const PURGE_EVERY_MS = 10 * 60_000;
// "last used" is written at most this often when nothing else changed (the idle limit is a day by default)
const TOUCH_EVERY_MS = 60_000;
// the console lists at most this many sessions, the most recently used
const LISTED = 1000;
/** The format of the state's text; a row of another format is no session this version can serve. */
const FORMAT = 1;

/**
 * Sessions in the store every gateway instance shares (SQLite or PostgreSQL, issue #13): a session opened at
 * one instance is served by any other with its active toolsets, deadlines, scopes and loaded tools. Each
 * request reads the row; a change is written as a whole row (the last write wins), in order per session, and
 * `settle` waits for this instance's writes before the answer goes out, so that the client's next request,
 * wherever it lands, sees them. Deadlines stay data, checked when a view is built; nothing runs in the
 * background: idle rows are forgotten when read, and purged now and then by a write.
 */
export class StoredSessionStore implements SessionStore {
  readonly shared = true;
  private readonly known = new Map<string, { state: string; seen: number }>();
  private readonly writes = new Map<string, Promise<void>>();
  private lastPurge = Number.NEGATIVE_INFINITY;
  private readonly touchEveryMs: number;

  constructor(
    private readonly rows: SessionRows,
    private readonly options: StoredSessionsOptions,
  ) {
    this.touchEveryMs = Math.min(TOUCH_EVERY_MS, Math.floor(options.idleMs / 10));
  }

  async get(id: string): Promise<SessionState | undefined> {
    await this.writes.get(id);
    const row = await this.rows.get(id);
    if (!row) {
      this.known.delete(id);
      return undefined;
    }
    if (this.options.now() - row.seen_ms > this.options.idleMs) {
      this.known.delete(id);
      await this.rows.delete(id);
      return undefined;
    }
    const state = parseState(row);
    if (!state) {
      this.options.onError?.(new Error(`session '${id}' in the store is not a session this version can read`), 'an agent session in the store is unreadable: treated as ended');
      return undefined;
    }
    this.remember(id, row.state, row.seen_ms);
    return state;
  }

  save(state: SessionState): Promise<void> {
    const text = stateText(state);
    const known = this.known.get(state.id);
    if (known && known.state === text && state.last_used - known.seen < this.touchEveryMs) return this.settle(state.id);
    const opening = known === undefined;
    this.remember(state.id, text, state.last_used);
    const row: SessionRow = { id: state.id, state: text, seen_ms: state.last_used };
    const write = (this.writes.get(state.id) ?? Promise.resolve()).then(() => this.rows.put(row));
    const settled = write.then(
      () => undefined,
      (error: Error) => {
        // what this process believes was written was not: the next save writes again
        if (this.known.get(state.id)?.state === text) this.known.delete(state.id);
        this.options.onError?.(error, 'cannot keep an agent session in the store');
      },
    );
    this.writes.set(state.id, settled);
    void settled.then(() => {
      if (this.writes.get(state.id) === settled) this.writes.delete(state.id);
    });
    if (opening) this.purgeNowAndThen();
    // a caller that waits (opening a session) hears of a failure; fire-and-forget callers only log it
    return write;
  }

  async delete(id: string): Promise<boolean> {
    await this.writes.get(id);
    this.known.delete(id);
    return this.rows.delete(id);
  }

  count(): Promise<number> {
    return this.rows.count();
  }

  /** The most recently used sessions first, at most a thousand (unreadable rows left out). */
  async list(): Promise<SessionState[]> {
    const rows = await this.rows.list(this.options.now() - this.options.idleMs, LISTED);
    return rows.map(parseState).filter((state): state is SessionState => state !== undefined);
  }

  /** Resolves once this process's writes of the session have reached the store, failed or not. */
  async settle(id: string): Promise<void> {
    await this.writes.get(id);
  }

  private remember(id: string, state: string, seen: number): void {
    this.known.delete(id);
    this.known.set(id, { state, seen });
    if (this.known.size > KNOWN_KEPT) this.known.delete(this.known.keys().next().value!);
  }

  private purgeNowAndThen(): void {
    const now = this.options.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.rows.purge(now - this.options.idleMs).catch((error: Error) => this.options.onError?.(error, 'cannot purge idle agent sessions from the store'));
  }
}

/** The state as the row keeps it: everything but `id` and `last_used`, which are columns. */
function stateText(state: SessionState): string {
  return JSON.stringify({
    format: FORMAT,
    created_at: state.created_at,
    version: state.version,
    toolsets: state.toolsets.map((toolset) => ({ name: toolset.name, scope: toolset.scope, deadline: toolset.deadline })),
    loaded: state.loaded.map((tool) => ({ name: tool.name, deadline: tool.deadline })),
    ...(state.principal === undefined ? {} : { principal: state.principal }),
  });
}

/** The row as a session, or undefined when its text is not one (edited by hand, or written by another version). */
function parseState(row: SessionRow): SessionState | undefined {
  let data: unknown;
  try {
    data = JSON.parse(row.state);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || data['format'] !== FORMAT) return undefined;
  const { created_at, version, toolsets, loaded, principal } = data;
  if (!isTime(created_at) || !isTime(version) || !Array.isArray(toolsets) || !Array.isArray(loaded)) return undefined;
  if (principal !== undefined && typeof principal !== 'string') return undefined;
  if (!toolsets.every(isActiveToolset) || !loaded.every(isLoadedTool)) return undefined;
  return {
    id: row.id,
    created_at,
    last_used: row.seen_ms,
    version,
    toolsets: toolsets.map((toolset) => ({ name: toolset.name, scope: toolset.scope, deadline: toolset.deadline })),
    loaded: loaded.map((tool) => ({ name: tool.name, deadline: tool.deadline })),
    ...(principal === undefined ? {} : { principal }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isActiveToolset(value: unknown): value is ActiveToolset {
  return isRecord(value) && typeof value['name'] === 'string' && (value['scope'] === 'session' || value['scope'] === 'turn') && (value['deadline'] === null || isTime(value['deadline']));
}

function isLoadedTool(value: unknown): value is LoadedTool {
  return isRecord(value) && typeof value['name'] === 'string' && isTime(value['deadline']);
}
