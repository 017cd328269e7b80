import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectReader } from './object-reader.js';

/**
 * One claim on a name, as git history can see it: a path in the repository (`['tools', 'deploy']` for a folder,
 * `['tools', 'file-read', 'TOOL.hdlp']` for a file) and, for a file, what its content must say (it declares an alias).
 */
export interface HistoryClaim {
  path: readonly string[];
  holds?: (content: Uint8Array) => boolean;
  /** the name it claims: claims of different names are told apart in one walk, which ends once no name has two left */
  group?: number;
}

/**
 * Why a walk stopped with claims still present: the first commit, a shallow clone's edge (or objects missing: `depth`
 * is that commit's distance from the scanned one, first parents counted; `fetch` why more history could not be
 * fetched, where it was asked for), the bound (of commits, or of tree bytes read).
 */
export type WalkEnd = { reason: 'root'; commit: string } | { reason: 'shallow'; commit: string; depth: number; fetch?: string } | { reason: 'bound'; commit: string; commits: number } | { reason: 'bytes'; commit: string; bytes: number };

/**
 * What a first-parent walk saw of each claim: the commit it appeared in (the last one walked back where it was present,
 * its parent lacking it), or none when it was still present where the walk ended; and that end, when it ended so.
 * `merged`: the merge commit (that one, or an older one its first parent lacked it at) another of whose parents held
 * the claim, so it was not added on the walked line but came in through the merge from a line the walk does not follow: its age is unknown (review Z2, Z2-2: a pusher who merges
 * main into a branch of their own and fast-forwards main makes main's line the second parent).
 */
export interface HistoryAnswer {
  appeared: Array<{ commit: string; depth: number; merged?: string } | undefined>;
  end?: WalkEnd;
  /**
   * The furthest first-parent commit each claim was seen present at (the walk goes on past where every claim appeared,
   * to its end): a claim present at or before the commit where the oldest one appeared was there before it, and was
   * deleted and added again (review Z4, F3b), so a server that saw that commit may have kept it.
   */
  furthest?: Array<{ commit: string; depth: number } | undefined>;
  /**
   * Claims a commit on a line a merge on the walked line brought in held without another claim of their name (`claim`
   * present, `without` absent): a server whose branch was at that commit kept the one it held (review Z4, F3b: the
   * reviewed tool deleted on the merged line just before the merge and added back after it).
   */
  alone?: Array<{ claim: number; without: number; commit: string }>;
}

/** Asks git history which claims are older: see {@link walkClaims}. */
export type ClaimHistory = (claims: readonly HistoryClaim[]) => Promise<HistoryAnswer>;

/** How many first-parent commits a walk looks at, at most: a clash at a cold start stays a fraction of a second. */
export const HISTORY_BOUND = 300;

/** How many bytes of trees a walk reads, at most: ~30 commits changing a 100,000-tool `tools/` tree (~4 MB each). */
export const HISTORY_BYTES = 128 * 1024 * 1024;

/** How many commits of the lines merges brought in a walk looks at, at most, besides its first-parent ones. */
export const MERGED_BOUND = 300;

/**
 * The most bytes of a commit's header (its tree, parents, author and committer lines, before the message) read:
 * ~21,000 parents. One past it makes the history unreadable, and the clash fails closed: 8,192 bytes hid an octopus
 * merge's parents past the ~169th, and with them the line the reviewed tool came in by (review Z4, F3).
 */
export const MAX_COMMIT_HEADER = 1024 * 1024;

/** History the walk cannot read at all (a commit header past `MAX_COMMIT_HEADER`): no claim is dated, every clash fails closed. */
export class UnreadableHistory extends Error {}

const TREE_MODE = '40000';

/**
 * Walks first-parent history back from `commit` while a claim of a name that has two or more is present, noting
 * where each one appeared (and, at a merge, which claims came in through it), then on to the walk's end, noting how far
 * back each claim is present (`furthest`); stops at the first commit, at a shallow clone's edge (or a parent that cannot be read), or
 * after `bound` commits or `bytes` of trees read. Then it looks at the lines the merges on the way brought in (`alone`). A commit whose root tree, or whose claims' top folders (`tools/`,
 * `toolsets/`), did not change is not looked into further, and a tree is read once a commit.
 */
export async function walkClaims(objects: ObjectReader, gitdir: string, commit: string, claims: readonly HistoryClaim[], bound = HISTORY_BOUND, bytes = HISTORY_BYTES): Promise<HistoryAnswer> {
  const appeared: HistoryAnswer['appeared'] = claims.map(() => undefined);
  const furthest: NonNullable<HistoryAnswer['furthest']> = claims.map(() => undefined);
  const shallow = new Set((await readFile(join(gitdir, 'shallow'), 'latin1').catch(() => '')).split('\n').filter(Boolean));
  // a file's verdict by its blob id: most commits leave a definition as it was
  const verdicts = new Map<string, boolean>();
  // every claim is followed back to where it appeared (not only until one claim of a name is left), so that a merge on
  // the way that brought in a claim its first parent lacked is seen (a claim deleted in the merge and added again after)
  const watched = unsettled(claims, claims.map((_, at) => at));
  let present = watched;
  // the watched claims the current commit holds: at first all of them (the scanned commit's entries)
  let held = new Set(watched);
  for (const at of watched) furthest[at] = { commit, depth: 0 };
  let current = await commitFacts(objects, commit);
  let currentCommit = commit;
  const read = { bytes: 0 };
  let previous = new Map<string, Promise<Buffer>>();
  // the first-parent line walked, and its merges: the lines they brought in are looked at after it
  const line = new Set([commit]);
  const merges: CommitFacts[] = [];
  let end: WalkEnd | undefined;
  for (let depth = 1; watched.length > 0; depth++) {
    const parentId = current.parent;
    if (parentId === undefined) {
      end = { reason: 'root', commit: currentCommit };
      break;
    }
    if (shallow.has(currentCommit)) {
      end = { reason: 'shallow', commit: currentCommit, depth: depth - 1 };
      break;
    }
    if (depth > bound) {
      end = { reason: 'bound', commit: currentCommit, commits: bound };
      break;
    }
    let parent: CommitFacts;
    try {
      parent = await commitFacts(objects, parentId);
    } catch (error) {
      if (error instanceof UnreadableHistory) throw error;
      end = { reason: 'shallow', commit: currentCommit, depth: depth - 1 };
      break;
    }
    line.add(parentId);
    // a merge is looked into even when its tree is its first parent's (`git merge -s ours`): what its other parents held counts
    const merge = current.parents.length > 1;
    if (merge) merges.push(current);
    if (parent.tree !== current.tree || merge) {
      // the trees read at this commit, once each, and those of the one before (its parent's are this one's): kept no
      // longer, 4 MB a commit at 100,000 tools
      const trees = new Map<string, Promise<Buffer>>();
      const before = previous;
      previous = trees;
      const tree = (oid: string): Promise<Buffer> => {
        let found = trees.get(oid) ?? before.get(oid);
        if (found) trees.set(oid, found);
        else trees.set(oid, (found = readTree(objects, oid, read)));
        return found;
      };
      if (merge || (await topsChanged(tree, current.tree, parent.tree, watched.map((at) => claims[at]!.path[0]!)))) {
        const still: number[] = [];
        const here = new Set(present);
        const parentHeld = new Set<number>();
        for (const at of watched) {
          const seen = appeared[at];
          if (await holds(objects, tree, parent.tree, claims[at]!, verdicts)) {
            parentHeld.add(at);
            if (here.has(at)) still.push(at);
            continue;
          }
          if (!here.has(at) && !(merge && seen !== undefined && !seen.merged)) continue;
          const merged = merge && (await mergedIn(objects, tree, current.parents, claims[at]!, verdicts));
          if (here.has(at)) appeared[at] = { commit: currentCommit, depth: depth - 1, ...(merged ? { merged: currentCommit } : {}) };
          else if (merged) appeared[at] = { ...seen!, merged: currentCommit };
        }
        present = still;
        held = parentHeld;
        if (read.bytes > bytes) {
          for (const at of held) furthest[at] = { commit: parentId, depth };
          end = { reason: 'bytes', commit: parentId, bytes };
          break;
        }
      }
    }
    // the parent holds what this commit does where its claims' folders did not change
    for (const at of held) furthest[at] = { commit: parentId, depth };
    current = parent;
    currentCommit = parentId;
  }
  const alone = merges.length > 0 && end?.reason !== 'bytes' ? await mergedLines(objects, claims, watched, merges, line, shallow, verdicts, read, bytes) : [];
  return { appeared, ...(end ? { end } : {}), ...(watched.length > 0 ? { furthest } : {}), ...(alone.length > 0 ? { alone } : {}) };
}

// a tree object's bytes, counted in `read`
function readTree(objects: ObjectReader, oid: string, read: { bytes: number }): Promise<Buffer> {
  return objects.read(oid, 'tree').then((object) => {
    read.bytes += object.content.length;
    return object.content;
  });
}

/**
 * The claims that a commit on a line one of `merges` brought in (its other parents and their ancestors, up to the
 * walked first-parent line) held without another claim of their name: a server whose branch was there kept that one.
 * Looks at `MERGED_BOUND` commits at most, stops at a shallow edge or a commit it cannot read, and within `bytes`.
 */
async function mergedLines(objects: ObjectReader, claims: readonly HistoryClaim[], watched: readonly number[], merges: readonly CommitFacts[], line: ReadonlySet<string>, shallow: ReadonlySet<string>, verdicts: Map<string, boolean>, read: { bytes: number }, bytes: number): Promise<NonNullable<HistoryAnswer['alone']>> {
  const found = new Map<string, { claim: number; without: number; commit: string }>();
  const queue = merges.flatMap((merge) => merge.parents.slice(1));
  const visited = new Set<string>();
  // the held claims of a root tree already looked at; trees read for the lines, dropped past a few hundred
  const states = new Map<string, number[]>();
  let trees = new Map<string, Promise<Buffer>>();
  const tree = (oid: string): Promise<Buffer> => {
    let got = trees.get(oid);
    if (!got) {
      if (trees.size > 512) trees = new Map();
      trees.set(oid, (got = readTree(objects, oid, read)));
    }
    return got;
  };
  while (queue.length > 0 && visited.size < MERGED_BOUND && read.bytes <= bytes) {
    const oid = queue.shift()!;
    if (line.has(oid) || visited.has(oid)) continue;
    visited.add(oid);
    let facts: CommitFacts;
    try {
      facts = await commitFacts(objects, oid);
    } catch (error) {
      if (error instanceof UnreadableHistory) throw error;
      continue;
    }
    let state = states.get(facts.tree);
    if (!state) {
      state = [];
      for (const at of watched) if (await holds(objects, tree, facts.tree, claims[at]!, verdicts)) state.push(at);
      states.set(facts.tree, state);
    }
    // a root commit holding two claims of a name is a tie the rules after history decide: either may have been kept
    const root = facts.parents.length === 0;
    for (const at of state) {
      for (const other of watched) {
        if (other === at || claims[other]!.group !== claims[at]!.group || (state.includes(other) && !root)) continue;
        const key = `${at}:${other}`;
        if (!found.has(key)) found.set(key, { claim: at, without: other, commit: oid });
      }
    }
    if (!shallow.has(oid)) queue.push(...facts.parents);
  }
  return [...found.values()];
}

// the claims of `present` whose name still has another claim present: a name down to one claim is settled
function unsettled(claims: readonly HistoryClaim[], present: readonly number[]): number[] {
  const counts = new Map<number | undefined, number>();
  for (const at of present) counts.set(claims[at]!.group, (counts.get(claims[at]!.group) ?? 0) + 1);
  return present.filter((at) => counts.get(claims[at]!.group)! > 1);
}

interface CommitFacts {
  tree: string;
  parent: string | undefined;
  /** every parent, the first one first */
  parents: string[];
}

// whether the claims' top folders (`tools`, `toolsets`) differ between two root trees (a commit that changed only a README or src/ is not looked into)
async function topsChanged(tree: (oid: string) => Promise<Buffer>, current: string, parent: string, tops: readonly string[]): Promise<boolean> {
  const [now, before] = await Promise.all([tree(current), tree(parent)]);
  return [...new Set(tops)].some((top) => findItem(now, top)?.oid !== findItem(before, top)?.oid);
}

// whether a parent of a merge other than its first holds the claim: it came in through the merge (its trees are read too)
async function mergedIn(objects: ObjectReader, tree: (oid: string) => Promise<Buffer>, parents: readonly string[], claim: HistoryClaim, verdicts: Map<string, boolean>): Promise<boolean> {
  for (const other of parents.slice(1)) {
    let facts: CommitFacts;
    try {
      facts = await commitFacts(objects, other);
    } catch {
      // a parent that cannot be read (a shallow edge): the claim may have come from it
      return true;
    }
    if (await holds(objects, tree, facts.tree, claim, verdicts)) return true;
  }
  return false;
}

// the tree and parents of a commit (through annotated tags, as a snapshot peels them), its whole header read
async function commitFacts(objects: ObjectReader, oid: string): Promise<CommitFacts> {
  let object = await objects.read(oid);
  for (let depth = 0; object.type === 'tag' && depth < 16; depth++) {
    const target = /^object ([0-9a-f]{40})\n/.exec(object.content.toString('latin1', 0, 48));
    if (!target) throw new Error(`tag ${oid} names no object`);
    object = await objects.read(target[1]!);
  }
  if (object.type !== 'commit') throw new Error(`${oid} is not a commit (a ${object.type})`);
  // the header only, all of it (an octopus merge's parent lines may run past any fixed prefix): a message may hold a
  // line that looks like one
  const content = object.content;
  const end = content.subarray(0, MAX_COMMIT_HEADER + 2).indexOf('\n\n');
  if (end < 0 && content.length > MAX_COMMIT_HEADER) throw new UnreadableHistory(`commit ${oid} has a header over ${MAX_COMMIT_HEADER / 1048576} MiB (its parent lines), which is not read`);
  if (end > MAX_COMMIT_HEADER) throw new UnreadableHistory(`commit ${oid} has a header over ${MAX_COMMIT_HEADER / 1048576} MiB (its parent lines), which is not read`);
  const head = content.toString('latin1', 0, end < 0 ? content.length : end + 1);
  const tree = /^tree ([0-9a-f]{40})\n/.exec(head)?.[1];
  if (tree === undefined) throw new Error(`commit ${oid} names no tree`);
  const parents = [...head.matchAll(/\nparent ([0-9a-f]{40})(?=\n)/g)].map((match) => match[1]!);
  return { tree, parent: parents[0], parents };
}

// whether the claim's path is there in that root tree (a folder as a folder, a file as a file whose content holds)
async function holds(objects: ObjectReader, tree: (oid: string) => Promise<Buffer>, root: string, claim: HistoryClaim, verdicts: Map<string, boolean>): Promise<boolean> {
  let oid = root;
  for (let at = 0; at < claim.path.length; at++) {
    const item = findItem(await tree(oid), claim.path[at]!);
    const last = at === claim.path.length - 1;
    const folder = !last || claim.holds === undefined;
    if (item === undefined || (item.mode === TREE_MODE) !== folder) return false;
    oid = item.oid;
  }
  if (claim.holds === undefined) return true;
  const known = verdicts.get(oid);
  if (known !== undefined) return known;
  const verdict = claim.holds((await objects.read(oid, 'blob')).content);
  verdicts.set(oid, verdict);
  return verdict;
}

/** The entry named `name` of a raw git tree object, found by comparing bytes (a `tools/` tree may hold 100,000 entries). */
export function findItem(raw: Uint8Array, name: string): { mode: string; oid: string } | undefined {
  const tree = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const wanted = Buffer.from(name, 'utf8');
  let position = 0;
  while (position < tree.length) {
    const space = tree.indexOf(0x20, position);
    const nul = space < 0 ? -1 : tree.indexOf(0x00, space);
    if (space < 0 || nul < 0 || nul + 21 > tree.length) throw new Error('malformed git tree object');
    if (nul - space - 1 === wanted.length && tree.compare(wanted, 0, wanted.length, space + 1, nul) === 0) {
      return { mode: tree.toString('latin1', position, space), oid: tree.toString('hex', nul + 1, nul + 21) };
    }
    position = nul + 21;
  }
  return undefined;
}
