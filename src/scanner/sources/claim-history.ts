import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { letGo, SLICE_MS } from '../../core/index.js';
import { commitFacts, UnreadableHistory, type CommitFacts } from './commit-facts.js';
import { findItem, Tree } from './git-tree.js';
import type { ObjectReader } from './object-reader.js';

export { MAX_COMMIT_HEADER, UnreadableHistory } from './commit-facts.js';
export { findItem } from './git-tree.js';

/**
 * One claim on a name, as git history can see it: a path in the repository (`['tools', 'deploy']` for a folder,
 * `['tools', 'file-read', 'TOOL.hdlp']` for a file) and, for a file, what its content must say (it declares an alias).
 */
export interface HistoryClaim {
  path: readonly string[];
  /** whether the file's content holds the claim; `unreadable` (why) when it cannot tell: too large or costly to read */
  holds?: (content: Uint8Array) => boolean | Unreadable;
  /** the largest file `holds` is given: a larger one is unreadable unread (review Z4, F1) */
  maxBytes?: number;
  /** the name it claims: claims of different names are told apart in one walk, which ends once no name has two left */
  group?: number;
}

/**
 * Why a walk stopped with claims still present: the first commit, a shallow clone's edge (or objects missing: `depth`
 * is that commit's distance from the scanned one, first parents counted; `fetch` why more history could not be
 * fetched, where it was asked for), a bound (of commits, of tree and file bytes read, of old definitions' bytes read,
 * of claim look-ups).
 */
export type WalkEnd =
  | { reason: 'root'; commit: string }
  | { reason: 'shallow'; commit: string; depth: number; fetch?: string }
  | { reason: 'bound'; commit: string; commits: number }
  | { reason: 'bytes'; commit: string; bytes: number }
  | { reason: 'files'; commit: string; bytes: number }
  | { reason: 'work'; commit: string; looks: number };

/** Why a claim's file could not be read at some commit: its name has no age history can tell (it fails closed). */
export interface Unreadable {
  unreadable: string;
}

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
  /** per claim, why a file of its name (its group) could not be read on the way, where one could not: that name is undecided */
  unreadable?: Array<string | undefined>;
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
 * How many bytes of claims' files (a TOOL.hdlp declaring an alias) a walk reads and parses, at most: a real definition
 * is a few KB, and `yaml` takes ~3 s of CPU and ~450 MB of heap for a hostile 1 MiB one on the event loop (review Z4, F1).
 */
export const HISTORY_FILE_BYTES = 4 * 1024 * 1024;

/**
 * How many claim look-ups (a claim checked at a commit) a walk makes, at most: 20,000 claims over 100 commits. Each is
 * a few map look-ups now, but their count is claims × commits, which a push of thousands of twins makes large (review Z4, F5).
 */
export const HISTORY_LOOKS = 2_000_000;

/** The walk's bounds past commits and tree bytes (tests lower them). */
export interface WalkBounds {
  fileBytes?: number;
  looks?: number;
}

const TREE_MODE = '40000';

/**
 * Walks first-parent history back from `commit` while a claim of a name that has two or more is present, noting
 * where each one appeared (and, at a merge, which claims came in through it), then on to the walk's end, noting how far
 * back each claim is present (`furthest`); stops at the first commit, at a shallow clone's edge (or a parent that cannot
 * be read), or after `bound` commits, `bytes` of trees and files read, `fileBytes` of claims' files read or `looks`
 * claims checked. Then it looks at the lines the merges on the way brought in (`alone`). A commit whose root tree, or
 * whose claims' top folders (`tools/`, `toolsets/`), did not change is not looked into further, a tree is read once a
 * commit (and indexed once many names are looked for in it), and the event loop turns every {@link SLICE_MS} (review
 * Z4, F5). A claim's file that cannot be read (too large, too costly: `holds` says) leaves its name undecided, the rest
 * walked on; a walk that ends at its bound of files' bytes or of look-ups (`files`, `work`) dates nothing for sure, and
 * every clash it was asked about fails closed (the name history's rule).
 */
export async function walkClaims(objects: ObjectReader, gitdir: string, commit: string, claims: readonly HistoryClaim[], bound = HISTORY_BOUND, bytes = HISTORY_BYTES, more: WalkBounds = {}): Promise<HistoryAnswer> {
  const appeared: HistoryAnswer['appeared'] = claims.map(() => undefined);
  const unreadable: Array<string | undefined> = claims.map(() => undefined);
  const furthest: NonNullable<HistoryAnswer['furthest']> = claims.map(() => undefined);
  const shallow = new Set((await readFile(join(gitdir, 'shallow'), 'latin1').catch(() => '')).split('\n').filter(Boolean));
  const budget: Budget = { read: 0, files: 0, fileBytes: more.fileBytes ?? HISTORY_FILE_BYTES, verdicts: claims.map(() => new Map()) };
  const looks = more.looks ?? HISTORY_LOOKS;
  let looked = 0;
  let slice = performance.now();
  const turn = async (): Promise<void> => {
    if (performance.now() - slice < SLICE_MS) return;
    await letGo();
    slice = performance.now();
  };
  // every claim is followed back to where it appeared (not only until one claim of a name is left), so that a merge on
  // the way that brought in a claim its first parent lacked is seen (a claim deleted in the merge and added again after),
  // and on to the walk's end, so that a claim deleted and added again is seen there before the other (review Z4, F3b)
  const watched = unsettled(claims, claims.map((_, at) => at));
  let present = watched;
  // the watched claims the current commit holds: at first all of them (the scanned commit's entries)
  let held = new Set(watched);
  for (const at of watched) furthest[at] = { commit, depth: 0 };
  const answer = (end?: WalkEnd, alone: NonNullable<HistoryAnswer['alone']> = []): HistoryAnswer => ({
    appeared, ...(end ? { end } : {}), ...(unreadable.some(Boolean) ? { unreadable } : {}), ...(watched.length > 0 ? { furthest } : {}), ...(alone.length > 0 ? { alone } : {}),
  });
  let current = await commitFacts(objects, commit);
  let currentCommit = commit;
  let previous = new Map<string, Promise<Tree>>();
  // the first-parent line walked, and its merges: the lines they brought in are looked at after it
  const line = new Set([commit]);
  const merges: CommitFacts[] = [];
  let end: WalkEnd | undefined;
  const tooMuch = (): WalkEnd | undefined => (++looked > looks ? { reason: 'work', commit: currentCommit, looks } : undefined);
  walk: for (let depth = 1; watched.length > 0; depth++) {
    await turn();
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
      const trees = new Map<string, Promise<Tree>>();
      const before = previous;
      previous = trees;
      const tree = (oid: string): Promise<Tree> => {
        let found = trees.get(oid) ?? before.get(oid);
        if (found) trees.set(oid, found);
        else trees.set(oid, (found = readTree(objects, oid, budget, turn)));
        return found;
      };
      if (merge || (await topsChanged(tree, current.tree, parent.tree, watched.map((at) => claims[at]!.path[0]!)))) {
        const still: number[] = [];
        const here = new Set(present);
        const parentHeld = new Set<number>();
        for (const at of watched) {
          const seen = appeared[at];
          if (unreadable[at] !== undefined) continue;
          end = tooMuch();
          if (end) break walk;
          await turn();
          const holding = await holds(objects, tree, parent.tree, claims[at]!, budget, at, parentId);
          if (holding === true) {
            parentHeld.add(at);
            if (here.has(at)) still.push(at);
            continue;
          }
          const follow = here.has(at) || (merge && seen !== undefined && !seen.merged);
          const merged = follow && holding === false && merge ? await mergedIn(objects, tree, current.parents, claims[at]!, budget, at) : false;
          const why = typeof holding === 'object' ? holding : typeof merged === 'object' ? merged : undefined;
          if (why) {
            if (why.unreadable === FILES_SPENT) {
              end = { reason: 'files', commit: currentCommit, bytes: budget.fileBytes };
              break walk;
            }
            // its name is undecided: none of its claims is followed further (review Z4, F1)
            for (let other = 0; other < claims.length; other++) if (claims[other]!.group === claims[at]!.group) unreadable[other] ??= why.unreadable;
            continue;
          }
          if (!follow) continue;
          if (here.has(at)) appeared[at] = { commit: currentCommit, depth: depth - 1, ...(merged ? { merged: currentCommit } : {}) };
          else if (merged) appeared[at] = { ...seen!, merged: currentCommit };
        }
        present = still.filter((at) => unreadable[at] === undefined);
        held = parentHeld;
        if (budget.read > bytes) {
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
  if (end?.reason === 'work' || end?.reason === 'files') return answer(end);
  // the lines merges brought in are not looked at once the trees' bytes are spent: nothing says a claim was not alone there (review Z5, Z5-2)
  if (merges.length > 0 && end?.reason === 'bytes') throw new UnreadableHistory(`the walk spent its ${bytes / 1048576} MiB of trees before the lines its merges brought in were looked at`);
  const alone = merges.length > 0 ? await mergedLines(objects, claims, watched.filter((at) => unreadable[at] === undefined), merges, line, shallow, budget, bytes, turn, tooMuch) : [];
  return answer(end, alone);
}

// a tree object's bytes, counted in the walk's budget, as a tree its names are looked up in
function readTree(objects: ObjectReader, oid: string, budget: Budget, turn: () => Promise<void>): Promise<Tree> {
  return objects.read(oid, 'tree').then((object) => {
    budget.read += object.content.length;
    return new Tree(object.content, turn);
  });
}

/**
 * The claims that a commit on a line one of `merges` brought in (its other parents and their ancestors, up to the
 * walked first-parent line) held without another claim of their name: a server whose branch was there kept that one.
 * Looks at `MERGED_BOUND` commits at most, stops at a shallow edge or a commit it cannot read, and within `bytes`; a
 * claim whose file cannot be read there, or the walk's bound of look-ups or files' bytes reached, makes the history
 * unreadable (every clash fails closed).
 */
async function mergedLines(objects: ObjectReader, claims: readonly HistoryClaim[], watched: readonly number[], merges: readonly CommitFacts[], line: ReadonlySet<string>, shallow: ReadonlySet<string>, budget: Budget, bytes: number, turn: () => Promise<void>, tooMuch: () => WalkEnd | undefined): Promise<NonNullable<HistoryAnswer['alone']>> {
  const found = new Map<string, { claim: number; without: number; commit: string }>();
  const queue = merges.flatMap((merge) => merge.parents.slice(1));
  const visited = new Set<string>();
  // each watched claim's fellows (the other claims of its name): a pair is looked for within a name only (review Z5, Z5-3)
  const fellows = new Map<number, number[]>();
  for (const at of watched) fellows.set(at, watched.filter((other) => other !== at && claims[other]!.group === claims[at]!.group));
  // the held claims of a root tree already looked at; trees read for the lines (with their indexes), dropped past a few dozen (review Z5, Z5-4)
  const states = new Map<string, Set<number>>();
  let trees = new Map<string, Promise<Tree>>();
  const tree = (oid: string): Promise<Tree> => {
    let got = trees.get(oid);
    if (!got) {
      if (trees.size > 32) trees = new Map();
      trees.set(oid, (got = readTree(objects, oid, budget, turn)));
    }
    return got;
  };
  // a line not walked to its end leaves a claim's being alone there unknown: every clash fails closed (review Z5, Z5-2)
  const unwalked = (): boolean => queue.some((oid) => !line.has(oid) && !visited.has(oid));
  while (queue.length > 0) {
    if ((visited.size >= MERGED_BOUND || budget.read > bytes) && unwalked()) {
      throw new UnreadableHistory(`the lines merges brought in reach past the walk's ${MERGED_BOUND} commits or ${bytes / 1048576} MiB of trees`);
    }
    await turn();
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
      state = new Set();
      for (const at of watched) {
        const bounded = tooMuch();
        if (bounded) throw new UnreadableHistory(`the lines merges brought in take more than the walk's ${HISTORY_LOOKS} look-ups of claims`);
        const holding = await holds(objects, tree, facts.tree, claims[at]!, budget, at, oid);
        if (typeof holding === 'object') throw new UnreadableHistory(holding.unreadable === FILES_SPENT ? `the lines merges brought in hold more than ${budget.fileBytes} bytes of definitions to read` : holding.unreadable);
        if (holding) state.add(at);
      }
      states.set(facts.tree, state);
    }
    // a root commit holding two claims of a name is a tie the rules after history decide: either may have been kept
    const root = facts.parents.length === 0;
    for (const at of state) {
      await turn();
      for (const other of fellows.get(at)!) {
        if (state.has(other) && !root) continue;
        const key = `${at}:${other}`;
        if (!found.has(key)) found.set(key, { claim: at, without: other, commit: oid });
      }
    }
    if (!shallow.has(oid)) queue.push(...facts.parents);
  }
  return [...found.values()];
}

/** What a walk has spent of its bounds on reading, and each claim's verdict by its file's blob id (most commits leave a definition as it was). */
interface Budget {
  read: number;
  files: number;
  fileBytes: number;
  verdicts: Array<Map<string, boolean | Unreadable>>;
}

// the reason `holds` gives once the walk has read `fileBytes` of claims' files: the walk ends there
const FILES_SPENT = '\0files';

// the claims of `present` whose name still has another claim present: a name down to one claim is settled
function unsettled(claims: readonly HistoryClaim[], present: readonly number[]): number[] {
  const counts = new Map<number | undefined, number>();
  for (const at of present) counts.set(claims[at]!.group, (counts.get(claims[at]!.group) ?? 0) + 1);
  return present.filter((at) => counts.get(claims[at]!.group)! > 1);
}

// whether the claims' top folders (`tools`, `toolsets`) differ between two root trees (a commit that changed only a README or src/ is not looked into)
async function topsChanged(tree: (oid: string) => Promise<Tree>, current: string, parent: string, tops: readonly string[]): Promise<boolean> {
  const [now, before] = await Promise.all([tree(current), tree(parent)]);
  for (const top of new Set(tops)) if ((await now.get(top))?.oid !== (await before.get(top))?.oid) return true;
  return false;
}

// whether a parent of a merge other than its first holds the claim: it came in through the merge (its trees are read too)
async function mergedIn(objects: ObjectReader, tree: (oid: string) => Promise<Tree>, parents: readonly string[], claim: HistoryClaim, budget: Budget, at: number): Promise<boolean | Unreadable> {
  for (const other of parents.slice(1)) {
    let facts: CommitFacts;
    try {
      facts = await commitFacts(objects, other);
    } catch (error) {
      if (error instanceof UnreadableHistory) throw error;
      // a parent that cannot be read (a shallow edge): the claim may have come from it
      return true;
    }
    const held = await holds(objects, tree, facts.tree, claim, budget, at, other);
    if (held !== false) return held;
  }
  return false;
}

// whether the claim's path is there in `commit`'s root tree (a folder as a folder, a file as a file whose content holds);
// a file too large for `holds`, or one it cannot read, is unreadable, and its bytes count against the walk's budgets
async function holds(objects: ObjectReader, tree: (oid: string) => Promise<Tree>, root: string, claim: HistoryClaim, budget: Budget, claimAt: number, commit: string): Promise<boolean | Unreadable> {
  let oid = root;
  for (let at = 0; at < claim.path.length; at++) {
    const item = await (await tree(oid)).get(claim.path[at]!);
    const last = at === claim.path.length - 1;
    const folder = !last || claim.holds === undefined;
    if (item === undefined || (item.mode === TREE_MODE) !== folder) return false;
    oid = item.oid;
  }
  if (claim.holds === undefined) return true;
  const verdicts = budget.verdicts[claimAt]!;
  const known = verdicts.get(oid);
  if (known !== undefined) return known;
  const where = `${claim.path.join('/')} at commit ${commit.slice(0, 12)}`;
  const maxBytes = claim.maxBytes ?? Number.POSITIVE_INFINITY;
  const size = await objects.size(oid);
  let verdict: boolean | Unreadable;
  if (size !== undefined && size > maxBytes) verdict = { unreadable: `${where} is ${size} bytes; the limit is ${maxBytes}` };
  else {
    if (budget.files + (size ?? 0) > budget.fileBytes) return { unreadable: FILES_SPENT };
    const { content } = await objects.read(oid, 'blob');
    budget.files += content.length;
    budget.read += content.length;
    if (content.length > maxBytes) verdict = { unreadable: `${where} is ${content.length} bytes; the limit is ${maxBytes}` };
    else if (budget.files > budget.fileBytes) return { unreadable: FILES_SPENT };
    else {
      const said = claim.holds(content);
      verdict = typeof said === 'object' ? { unreadable: `${where}: ${said.unreadable}` } : said;
    }
  }
  verdicts.set(oid, verdict);
  return verdict;
}

