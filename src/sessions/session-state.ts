/** How long an enabled toolset lives: until it is disabled or times out (`session`), or until the turn ends (`turn`). */
export type ToolsetScope = 'session' | 'turn';

/** One active toolset of a session. */
export interface ActiveToolset {
  name: string;
  scope: ToolsetScope;
  /** when it expires (ms since the epoch), unless a call of one of its tools or a new enable moves it; null: chosen at connect time, no timeout */
  deadline: number | null;
}

/** A tool brought back for the current turn by `tool_load`, `tool_find` or a substituted call. */
export interface LoadedTool {
  name: string;
  deadline: number;
}

/** What a session remembers: plain data, so that a store can keep it anywhere. */
export interface SessionState {
  id: string;
  created_at: number;
  last_used: number;
  /** counts changes to the active toolsets and loaded tools: equal versions, equal views */
  version: number;
  /** in the order they were enabled */
  toolsets: ActiveToolset[];
  loaded: LoadedTool[];
  /** who the session acts for, once principals exist (the rights layer reads it) */
  principal?: string;
}

/** A new session with nothing active. */
export function newSessionState(id: string, now: number, principal?: string): SessionState {
  return { id, created_at: now, last_used: now, version: 0, toolsets: [], loaded: [], ...(principal === undefined ? {} : { principal }) };
}

/** Drops the toolsets and loaded tools whose deadline has passed (seed 000 §5: checked when the view is built, no timers); true if any went. */
export function expireSession(state: SessionState, now: number): boolean {
  const toolsets = state.toolsets.filter((toolset) => toolset.deadline === null || toolset.deadline > now);
  const loaded = state.loaded.filter((tool) => tool.deadline > now);
  if (toolsets.length === state.toolsets.length && loaded.length === state.loaded.length) return false;
  state.toolsets = toolsets;
  state.loaded = loaded;
  state.version += 1;
  return true;
}

/** Enables a toolset, or extends its deadline when it is already active. */
export function enableToolset(state: SessionState, name: string, scope: ToolsetScope, deadline: number | null): 'enabled' | 'extended' {
  const active = state.toolsets.find((toolset) => toolset.name === name);
  if (active) {
    // a pinned set stays pinned; a turn set asked for the session becomes a session set
    if (active.deadline !== null) active.deadline = deadline === null ? null : Math.max(active.deadline, deadline);
    if (scope === 'session' && active.scope === 'turn') {
      active.scope = 'session';
      state.version += 1;
    }
    return 'extended';
  }
  state.toolsets.push({ name, scope, deadline });
  state.version += 1;
  return 'enabled';
}

/** Disables one toolset, or all of them without a name; the names that were active. */
export function disableToolsets(state: SessionState, name?: string): string[] {
  const removed = state.toolsets.filter((toolset) => name === undefined || toolset.name === name).map((toolset) => toolset.name);
  if (removed.length === 0) return [];
  state.toolsets = state.toolsets.filter((toolset) => !removed.includes(toolset.name));
  state.version += 1;
  return removed;
}

/** Loads tools for the turn; the names that were not loaded before. */
export function loadTools(state: SessionState, names: readonly string[], deadline: number): string[] {
  const added: string[] = [];
  for (const name of names) {
    const loaded = state.loaded.find((tool) => tool.name === name);
    if (loaded) loaded.deadline = Math.max(loaded.deadline, deadline);
    else {
      state.loaded.push({ name, deadline });
      added.push(name);
    }
  }
  if (added.length) state.version += 1;
  return added;
}

/** A call of `tool` ran: every active toolset in `toolsets` that holds it, and the tool if loaded, lives `ttl` longer (seed 000 §5). */
export function touchAfterCall(state: SessionState, tool: string, holders: ReadonlySet<string>, deadline: number): void {
  for (const toolset of state.toolsets) {
    if (toolset.deadline !== null && holders.has(toolset.name)) toolset.deadline = Math.max(toolset.deadline, deadline);
  }
  const loaded = state.loaded.find((entry) => entry.name === tool);
  if (loaded) loaded.deadline = Math.max(loaded.deadline, deadline);
}

/** The turn ended: turn-scoped toolsets and loaded tools go; true if anything did. */
export function endTurn(state: SessionState): boolean {
  const toolsets = state.toolsets.filter((toolset) => toolset.scope !== 'turn');
  if (toolsets.length === state.toolsets.length && state.loaded.length === 0) return false;
  state.toolsets = toolsets;
  state.loaded = [];
  state.version += 1;
  return true;
}
