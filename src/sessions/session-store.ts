import { fairEvictee } from '../core/index.js';
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

/**
 * Sessions in this process's memory, bounded twice: each principal keeps at most `maxPerPrincipal` (one more
 * forgets that principal's own least recently used), and all together at most `maxSessions` (one more forgets the
 * least recently used session of the principal holding the most), so that no principal's sessions push out
 * another's. An idle one is forgotten when next looked up.
 */
export class MemorySessionStore implements SessionStore {
  // insertion order is recency: a session is moved to the end each time it is written (a use writes it; a read that
  // is not a use, another principal's look-up of the id, must not move it)
  private readonly sessions = new Map<string, SessionState>();
  private readonly perPrincipal = new Map<string, number>();

  constructor(private readonly options: { maxSessions: number; maxPerPrincipal?: number; idleMs: number; now: () => number }) {}

  async get(id: string): Promise<SessionState | undefined> {
    const state = this.sessions.get(id);
    if (!state) return undefined;
    if (this.options.now() - state.last_used > this.options.idleMs) {
      this.remove(id);
      return undefined;
    }
    return state;
  }

  async save(state: SessionState): Promise<void> {
    const known = this.sessions.get(state.id);
    if (known) this.remove(state.id);
    this.sessions.set(state.id, state);
    const owner = ownerOf(state);
    const held = (this.perPrincipal.get(owner) ?? 0) + 1;
    this.perPrincipal.set(owner, held);
    if (held > (this.options.maxPerPrincipal ?? Number.POSITIVE_INFINITY)) {
      for (const [id, other] of this.sessions) {
        if (ownerOf(other) === owner) {
          this.remove(id);
          break;
        }
      }
    }
    while (this.sessions.size > this.options.maxSessions) {
      const evicted = fairEvictee(mapEntries(this.sessions, (other) => ownerOf(other)));
      if (evicted === undefined) break;
      this.remove(evicted);
    }
  }

  async delete(id: string): Promise<boolean> {
    return this.remove(id);
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }

  async list(): Promise<SessionState[]> {
    const now = this.options.now();
    return [...this.sessions.values()].filter((state) => now - state.last_used <= this.options.idleMs).reverse();
  }

  private remove(id: string): boolean {
    const state = this.sessions.get(id);
    if (!state) return false;
    this.sessions.delete(id);
    const owner = ownerOf(state);
    const held = (this.perPrincipal.get(owner) ?? 1) - 1;
    if (held > 0) this.perPrincipal.set(owner, held);
    else this.perPrincipal.delete(owner);
    return true;
  }
}

// sessions opened with no principal (the operator at this machine) count as one owner
const ownerOf = (state: SessionState): string => state.principal ?? '';

function* mapEntries<Value>(map: Map<string, Value>, owner: (value: Value) => string): Iterable<readonly [string, string]> {
  for (const [id, value] of map) yield [id, owner(value)];
}
