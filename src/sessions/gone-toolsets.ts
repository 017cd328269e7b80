import { BROKEN_MEMBER, type ToolIndex } from '../core/index.js';

/** A toolset a session may still hold that the index no longer serves, and why. */
export interface GoneToolset {
  name: string;
  /** the commit whose scan left it out; undefined when this process never served it (started after, or another instance) */
  since?: string;
  /** what happened to it, in words: its members removed, its file removed, its definition broken */
  what: string;
  /** its file holds errors of its own: `what` quotes them, for an admin only (review Z3, 3) */
  broken?: true;
  /** its file's only errors are members the registry no longer has: `what` names them, for an admin only */
  membersGone?: true;
  /** of those members, some are tools whose own definition is broken (review userZ4, F4) */
  membersBroken?: true;
}

/** What a caller who may not read the scan's errors is told of a toolset whose definition failed to load. */
export const TOOLSET_WITHHELD = 'its definition failed to load; an administrator can see why';
const MEMBERS_GONE = 'its members were removed from the registry, and it names no other';
const MEMBERS_BROKEN = "a member's definition failed to load, and it names no member that is served; an administrator can see why";

/** Where a toolset's definition lives. */
export const toolsetFile = (name: string): string => `toolsets/${name}/TOOLSET.hdlp`;

/**
 * The toolsets `next` no longer serves: those `previous` served that `next` lacks (gone at `next`'s commit), and those
 * already gone before (`known`) that are still missing. Worked out once per swap, so that the commit a toolset went
 * at is the one the scan found, however many rescans came after.
 */
export function goneAfterSwap(known: ReadonlyMap<string, GoneToolset>, previous: ToolIndex, next: ToolIndex): Map<string, GoneToolset> {
  const served = new Set(next.toolsets.map((toolset) => toolset.name.toLowerCase()));
  const gone = new Map<string, GoneToolset>();
  for (const [key, entry] of known) if (!served.has(key)) gone.set(key, entry);
  for (const toolset of previous.toolsets) {
    const key = toolset.name.toLowerCase();
    if (served.has(key)) continue;
    gone.set(key, { name: toolset.name, since: shortCommit(next.commit), what: whatHappened(next, toolset.name, toolset.tools), ...marks(next, toolset.name) });
  }
  return gone;
}

/** What the index says of a toolset it does not serve, without knowing when it went; undefined when it says nothing. */
export function goneFromIndex(index: ToolIndex, name: string): GoneToolset | undefined {
  return fileErrors(index, name).length === 0 ? undefined : { name, what: whatHappened(index, name, []), ...marks(index, name) };
}

// a file with errors of its own is broken; one whose only errors are members the registry no longer has lost its members
function marks(index: ToolIndex, name: string): Pick<GoneToolset, 'broken' | 'membersGone' | 'membersBroken'> {
  const errors = fileErrors(index, name);
  if (errors.length === 0) return {};
  if (!errors.every((error) => error.code === 'UNKNOWN_MEMBER')) return { broken: true };
  return { membersGone: true, ...(errors.some(namesBrokenMember) ? { membersBroken: true } : {}) };
}

const namesBrokenMember = (error: { message: string }): boolean => error.message.includes(BROKEN_MEMBER);

/**
 * The sentence a session is told about a gone toolset; `held`: the session still has it active, and may put it down.
 * `readsErrors` false: its caller is not told a broken file's path, line, message or member names (review Z3, 3).
 */
export function goneMessage(gone: GoneToolset, commit: string, held: boolean, readsErrors = true): string {
  const withheld = gone.broken === true && !readsErrors;
  if (withheld && !held) return `toolset '${gone.name}' cannot be enabled: ${TOOLSET_WITHHELD}`;
  const when = gone.since === undefined ? `is not in the registry at commit ${shortCommit(commit)}` : `is gone since commit ${gone.since}`;
  const fix = held ? `; disable it with toolset {"action": "disable", "name": "${gone.name}"} (its tools stay hidden while it is active)` : '';
  // which members went is the admin's to read; that they went, and when, is the session's (review userX, X2)
  const what = withheld ? TOOLSET_WITHHELD : gone.membersGone === true && !readsErrors ? (gone.membersBroken === true ? MEMBERS_BROKEN : MEMBERS_GONE) : gone.what;
  return `toolset '${gone.name}' ${when}: ${what}${fix}`;
}

function fileErrors(index: ToolIndex, name: string): ToolIndex['errors'] {
  const file = toolsetFile(name).toLowerCase();
  return index.errors.filter((error) => error.file.toLowerCase() === file);
}

function whatHappened(index: ToolIndex, name: string, members: readonly string[]): string {
  const errors = fileErrors(index, name);
  if (errors.length === 0) return `its file ${toolsetFile(name)} was removed`;
  const unknown = errors.filter((error) => error.code === 'UNKNOWN_MEMBER');
  if (unknown.length === errors.length && unknown.some(namesBrokenMember)) {
    // a member whose own file is broken was not removed: its errors' words, file:line:col included, are the admin's
    return `its members are not served: ${unknown.map((error) => error.message).join('; ')}`;
  }
  if (unknown.length === errors.length) {
    // the members it named, as its previous definition wrote them (else as the errors quote them)
    const named = members.length > 0 ? members : unknown.map((error) => /names '([^']*)'/.exec(error.message)?.[1]).filter((member): member is string => member !== undefined);
    return `its members ${named.join(', ')} were removed from the registry, and it names no other`;
  }
  const first = errors.find((error) => error.code !== 'UNKNOWN_MEMBER')!;
  return `its definition is broken: ${first.file}:${first.line}:${first.column}: ${first.message}`;
}

function shortCommit(commit: string): string {
  return /^[0-9a-f]{40}$/.test(commit) ? commit.slice(0, 7) : commit;
}

/** The toolsets each index of this process lacks that an earlier one served, kept per index (weakly: a swapped-out index goes with its entry). */
export class GoneToolsets {
  readonly #byIndex = new WeakMap<ToolIndex, Map<string, GoneToolset>>();

  /** A rescan swaps `previous` for `next`: what `previous` served and `next` lacks went at `next`'s commit. */
  noteSwap(previous: ToolIndex, next: ToolIndex): void {
    this.#byIndex.set(next, goneAfterSwap(this.#byIndex.get(previous) ?? new Map(), previous, next));
  }

  /** What a session is told of a toolset `index` does not serve (the caller checked it does not); `held`: the session has it active; `readsErrors`: see `goneMessage`. */
  message(index: ToolIndex, name: string, held: boolean, readsErrors = true): string | undefined {
    const gone = this.#byIndex.get(index)?.get(name.toLowerCase()) ?? goneFromIndex(index, name) ?? (held ? { name, what: 'no toolset of that name is served' } : undefined);
    return gone && goneMessage(gone, index.commit, held, readsErrors);
  }
}
