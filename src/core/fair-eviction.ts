/**
 * Which entry goes when a bound that several principals share is full: the least recently used entry of the
 * principal holding the most (ties: the one whose oldest entry is oldest). A principal that fills the bound
 * thereby evicts only its own entries, never another's. `held` is in recency order, least recently used first,
 * each entry with its owner.
 */
export function fairEvictee<Id>(held: Iterable<readonly [Id, string]>): Id | undefined {
  // insertion order of the map is the order of each owner's oldest entry
  const owners = new Map<string, { count: number; oldest: Id }>();
  for (const [id, owner] of held) {
    const seen = owners.get(owner);
    if (seen) seen.count += 1;
    else owners.set(owner, { count: 1, oldest: id });
  }
  let chosen: { count: number; oldest: Id } | undefined;
  for (const entry of owners.values()) if (!chosen || entry.count > chosen.count) chosen = entry;
  return chosen?.oldest;
}
