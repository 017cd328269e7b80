/** How sessions behave; the gateway config's `sessions` section. */
export interface SessionsConfig {
  /** an enabled toolset lives this long after the last call of one of its tools (seed 000 §5: 10 minutes) */
  toolsetTtlMs: number;
  /** sessions kept at once (in memory); one more forgets the least recently used of the principal holding the most */
  maxSessions: number;
  /** sessions one principal keeps at once (in memory); one more forgets that principal's least recently used */
  maxSessionsPerPrincipal: number;
  /** a session unused this long is forgotten when next looked up */
  idleMs: number;
  /** tool names and groups no session may see or run (Forbidden) */
  deny: string[];
  /** tool names and groups reserved until a toolset names them or tool_load brings them (seed 001 `tools.on_demand`) */
  onDemand: string[];
  /** a call to a reserved tool enables its toolset and answers that nothing ran (`enable`), or also runs it when its params are valid (`run`) */
  reservedCalls: 'enable' | 'run';
  /** the line a folded group shows in the hidden-tools block */
  groupDescriptions: Record<string, string>;
  /**
   * where sessions live: `memory` (this process), `shared` (the store, so that every instance sharing it serves
   * them), or `auto`: the store when it is PostgreSQL (the scale-out), memory on the SQLite file
   */
  store: 'auto' | 'memory' | 'shared';
}

/** The defaults: 10-minute toolsets, 10,000 sessions (1,000 a principal), forgotten after a day unused, nothing denied, nothing on demand, in the store only on PostgreSQL. */
export const DEFAULT_SESSIONS_CONFIG: SessionsConfig = {
  toolsetTtlMs: 10 * 60_000,
  maxSessions: 10_000,
  maxSessionsPerPrincipal: 1000,
  idleMs: 24 * 60 * 60_000,
  deny: [],
  onDemand: [],
  reservedCalls: 'enable',
  groupDescriptions: {},
  store: 'auto',
};
