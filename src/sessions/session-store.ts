import type { SessionState } from './session-state.js';

/**
 * Where sessions live. In memory by default; a shared store (the scale-out work) keeps the same plain
 * `SessionState` records elsewhere, which is why every method may be asynchronous.
 */
export interface SessionStore {
  get(id: string): Promise<SessionState | undefined>;
  /** writes a new or changed session */
  save(state: SessionState): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** sessions held now */
  count(): Promise<number>;
  /** the sessions held now, most recently used first (for people: the console) */
  list(): Promise<SessionState[]>;
  /** true when other gateway instances see the same sessions (a change must reach the store before the answer goes out) */
  readonly shared?: boolean;
  /** resolves once this process's writes of the session have reached the store */
  settle?(id: string): Promise<void>;
}

/** Sessions in this process's memory: bounded, least recently used first out, an idle one forgotten when next looked up. */
export class MemorySessionStore implements SessionStore {
  // insertion order is recency: a session is moved to the end each time it is read or written
  private readonly sessions = new Map<string, SessionState>();

  constructor(private readonly options: { maxSessions: number; idleMs: number; now: () => number }) {}

  async get(id: string): Promise<SessionState | undefined> {
    const state = this.sessions.get(id);
    if (!state) return undefined;
    if (this.options.now() - state.last_used > this.options.idleMs) {
      this.sessions.delete(id);
      return undefined;
    }
    this.sessions.delete(id);
    this.sessions.set(id, state);
    return state;
  }

  async save(state: SessionState): Promise<void> {
    this.sessions.delete(state.id);
    this.sessions.set(state.id, state);
    while (this.sessions.size > this.options.maxSessions) {
      const [oldest] = this.sessions.keys();
      this.sessions.delete(oldest!);
    }
  }

  async delete(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }

  async list(): Promise<SessionState[]> {
    const now = this.options.now();
    return [...this.sessions.values()].filter((state) => now - state.last_used <= this.options.idleMs).reverse();
  }
}
