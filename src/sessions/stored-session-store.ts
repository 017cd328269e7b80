import { mergeSessionChange } from './session-merge.js';
import type { ActiveToolset, LoadedTool, SessionState } from './session-state.js';
import type { SessionStore } from './session-store.js';

/** A session as a row of the shared store: its state as JSON text, when it was last used, and its revision. */
export interface SessionRow {
  id: string;
  state: string;
  seen_ms: number;
  /** counts the row's writes */
  rev: number;
}

/** The rows the store keeps (the store's `agentSessions`; the gateway wires them in). */
export interface SessionRows {
  get(id: string): Promise<SessionRow | undefined>;
  /** writes the row if it is still at revision `expected` (undefined: whatever is there); its new revision, or undefined when another write came first */
  write(row: Omit<SessionRow, 'rev'>, expected?: number): Promise<number | undefined>;
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
// a write that keeps losing to other instances' writes of the same session gives up after this many merges
const MERGES = 20;

/**
 * Sessions in the store every gateway instance shares (SQLite or PostgreSQL, issue #13): a session opened at
 * one instance is served by any other with its active toolsets, deadlines, scopes and loaded tools. Each
 * request reads the row; a change is written over the revision it was read at (compare-and-set), in order per
 * session. When another instance wrote the session meanwhile, the change is merged into what it wrote and written
 * again (`mergeSessionChange`), so that two instances changing one session at once both keep their change.
 * `settle` waits for this instance's writes before the answer goes out, so that the client's next request,
 * wherever it lands, sees them. Deadlines stay data, checked when a view is built; nothing runs in the
 * background: idle rows are forgotten when read, and purged now and then by a write.
 */
export class StoredSessionStore implements SessionStore {
  readonly shared = true;
  /** the row as this process last read or wrote it */
  private readonly known = new Map<string, { state: string; seen: number; rev: number }>();
  /** the text each state object was read as or last saved as: what its next change is a change of */
  private readonly bases = new WeakMap<SessionState, string>();
  /** the text of the newest write queued per session: the same text again writes nothing more */
  private readonly queued = new Map<string, string>();
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
    this.remember(id, row.state, row.seen_ms, row.rev);
    this.bases.set(state, row.state);
    return state;
  }

  save(state: SessionState): Promise<void> {
    const text = stateText(state);
    const known = this.known.get(state.id);
    const base = this.bases.get(state);
    this.bases.set(state, text);
    if (known && known.state === text && state.last_used - known.seen < this.touchEveryMs) return this.settle(state.id);
    if (this.queued.get(state.id) === text) return this.settle(state.id);
    this.queued.set(state.id, text);
    const opening = known === undefined;
    const write = (this.writes.get(state.id) ?? Promise.resolve()).then(() => this.write(state, text, base));
    const settled = write.then(
      () => undefined,
      (error: Error) => {
        // what this process believes is in the store may not be: the next read or save finds out
        this.known.delete(state.id);
        this.options.onError?.(error, 'cannot keep an agent session in the store');
      },
    );
    this.writes.set(state.id, settled);
    void settled.then(() => {
      if (this.writes.get(state.id) === settled) {
        this.writes.delete(state.id);
        this.queued.delete(state.id);
      }
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

  /**
   * Writes the change `state` made to `base` (the text it was read as): over the row as this process knows it when
   * that is still the base, else merged into the row as it is now; again, merged, whenever another write came first.
   * A state with no base (a session just opened) is written whole. A session another instance closed stays closed.
   */
  private async write(state: SessionState, text: string, base: string | undefined): Promise<void> {
    if (base === undefined) {
      const rev = await this.rows.write({ id: state.id, state: text, seen_ms: state.last_used });
      if (rev !== undefined) this.remember(state.id, text, state.last_used, rev);
      return;
    }
    const ours = parseState({ id: state.id, state: text, seen_ms: state.last_used, rev: 0 })!;
    const original = parseState({ id: state.id, state: base, seen_ms: state.last_used, rev: 0 });
    const known = this.known.get(state.id);
    let row: SessionRow | undefined = known ? { id: state.id, state: known.state, seen_ms: known.seen, rev: known.rev } : await this.rows.get(state.id);
    for (let merges = 0; row !== undefined; merges += 1) {
      const theirs = row.state === base ? undefined : parseState(row);
      // a row no longer readable as a session is this change's to replace
      const next = theirs && original ? mergeSessionChange(original, ours, theirs) : ours;
      const desired = { id: state.id, state: next === ours ? text : stateText(next), seen_ms: Math.max(state.last_used, row.seen_ms) };
      const rev = await this.rows.write(desired, row.rev);
      if (rev !== undefined) {
        this.remember(state.id, desired.state, desired.seen_ms, rev);
        return;
      }
      if (merges >= MERGES) throw new Error(`session '${state.id}' was changed by other writes ${MERGES} times while this change was merged into them; it was not written`);
      row = await this.rows.get(state.id);
    }
    this.known.delete(state.id);
  }

  private remember(id: string, state: string, seen: number, rev: number): void {
    this.known.delete(id);
    this.known.set(id, { state, seen, rev });
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
