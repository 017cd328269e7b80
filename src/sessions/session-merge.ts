import type { ActiveToolset, SessionState } from './session-state.js';

/**
 * One instance's change of a session applied to the session as another instance has written it meanwhile (a
 * three-way merge): what `ours` added, changed or removed since `base` (the state it was read as) is done to
 * `theirs`, and what `theirs` did is kept. Two changes of one toolset or loaded tool keep the later deadline (a pinned
 * toolset stays pinned) and the wider scope; a removal on either side wins over the other side's extension.
 */
export function mergeSessionChange(base: SessionState, ours: SessionState, theirs: SessionState): SessionState {
  return {
    ...theirs,
    last_used: Math.max(ours.last_used, theirs.last_used),
    // a version neither side has seen: a view cached for either is not taken for the merged one
    version: Math.max(ours.version, theirs.version) + 1,
    toolsets: mergeByName(base.toolsets, ours.toolsets, theirs.toolsets, sameToolset, combineToolsets),
    loaded: mergeByName(base.loaded, ours.loaded, theirs.loaded, (a, b) => a.deadline === b.deadline, (a, b) => ({ name: a.name, deadline: Math.max(a.deadline, b.deadline) })),
  };
}

function mergeByName<T extends { name: string }>(base: readonly T[], ours: readonly T[], theirs: readonly T[], same: (a: T, b: T) => boolean, combine: (a: T, b: T) => T): T[] {
  const before = new Map(base.map((entry) => [entry.name, entry]));
  const mine = new Map(ours.map((entry) => [entry.name, entry]));
  const merged = new Map(theirs.map((entry) => [entry.name, { ...entry }]));
  // removed here since the read
  for (const name of before.keys()) if (!mine.has(name)) merged.delete(name);
  for (const entry of ours) {
    const old = before.get(entry.name);
    if (old && same(old, entry)) continue;
    const other = merged.get(entry.name);
    if (other) merged.set(entry.name, combine(other, entry));
    // added here; one changed here but removed there stays removed
    else if (!old) merged.set(entry.name, { ...entry });
  }
  return [...merged.values()];
}

function sameToolset(a: ActiveToolset, b: ActiveToolset): boolean {
  return a.scope === b.scope && a.deadline === b.deadline;
}

function combineToolsets(a: ActiveToolset, b: ActiveToolset): ActiveToolset {
  return {
    name: a.name,
    scope: a.scope === 'session' || b.scope === 'session' ? 'session' : 'turn',
    deadline: a.deadline === null || b.deadline === null ? null : Math.max(a.deadline, b.deadline),
  };
}
