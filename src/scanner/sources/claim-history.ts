import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { letGo, SLICE_MS } from '../../core/index.js';
import type { ObjectReader } from './object-reader.js';

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
}

/** Asks git history which claims are older: see {@link walkClaims}. */
export type ClaimHistory = (claims: readonly HistoryClaim[]) => Promise<HistoryAnswer>;

/** How many first-parent commits a walk looks at, at most: a clash at a cold start stays a fraction of a second. */
export const HISTORY_BOUND = 300;

/** How many bytes of trees a walk reads, at most: ~30 commits changing a 100,000-tool `tools/` tree (~4 MB each). */
export const HISTORY_BYTES = 128 * 1024 * 1024;

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

/** A tree's entries by name (the name's bytes as latin1, so every name keeps its own key). */
type TreeIndex = Map<string, { mode: string; oid: string }>;

/** How many names are looked for in a tree by a linear search before it is indexed: a walk of two claims over a 100,000-entry tree indexes none. */
const LINEAR_LOOKS = 16;

/** A tree read at a commit: its first few names found by a linear search, then all through an index built once (review Z4, F5). */
class Tree {
  private index: Promise<TreeIndex> | undefined;
  private looks = 0;

  constructor(
    private readonly raw: Buffer,
    private readonly turn: () => Promise<void>,
  ) {}

  async get(name: string): Promise<{ mode: string; oid: string } | undefined> {
    if (this.index === undefined && ++this.looks <= LINEAR_LOOKS) return findItem(this.raw, name);
    this.index ??= indexTree(this.raw, this.turn);
    return (await this.index).get(Buffer.from(name, 'utf8').toString('latin1'));
  }
}

/**
 * Walks first-parent history back from `commit` while a claim of a name that has two or more is present, noting
 * where each one appeared (and, at a merge, which claims came in through it); stops at the first commit, at a shallow clone's edge (or a parent that cannot be read), or
 * after `bound` commits, `bytes` of trees and files read, `fileBytes` of claims' files read or `looks` claims checked. A
 * commit whose root tree, or whose claims' top folders (`tools/`, `toolsets/`), did not change is not looked into
 * further, a tree is read once a commit (and indexed once many names are looked for in it), and the event loop turns
 * every {@link SLICE_MS} (review Z4, F5).
 * A claim's file that cannot be read (too large, too costly: `holds` says) leaves its name undecided, the rest walked on.
 */
export async function walkClaims(objects: ObjectReader, gitdir: string, commit: string, claims: readonly HistoryClaim[], bound = HISTORY_BOUND, bytes = HISTORY_BYTES, more: WalkBounds = {}): Promise<HistoryAnswer> {
  const appeared: HistoryAnswer['appeared'] = claims.map(() => undefined);
  const unreadable: Array<string | undefined> = claims.map(() => undefined);
  const answer = (end?: WalkEnd): HistoryAnswer => ({ appeared, ...(end ? { end } : {}), ...(unreadable.some(Boolean) ? { unreadable } : {}) });
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
  // the way that brought in a claim its first parent lacked is seen (a claim deleted in the merge and added again after)
  let present = unsettled(claims, claims.map((_, at) => at));
  let current = await commitFacts(objects, commit);
  let currentCommit = commit;
  let previous = new Map<string, Promise<Tree>>();
  for (let depth = 1; present.length > 0; depth++) {
    await turn();
    const parentId = current.parent;
    if (parentId === undefined) return answer({ reason: 'root', commit: currentCommit });
    if (shallow.has(currentCommit)) return answer({ reason: 'shallow', commit: currentCommit, depth: depth - 1 });
    if (depth > bound) return answer({ reason: 'bound', commit: currentCommit, commits: bound });
    let parent: CommitFacts;
    try {
      parent = await commitFacts(objects, parentId);
    } catch {
      return answer({ reason: 'shallow', commit: currentCommit, depth: depth - 1 });
    }
    // a merge is looked into even when its tree is its first parent's (`git merge -s ours`): what its other parents held counts
    const merge = current.parents.length > 1;
    if (parent.tree !== current.tree || merge) {
      // the trees read at this commit, once each, and those of the one before (its parent's are this one's): kept no
      // longer, 4 MB a commit at 100,000 tools
      const trees = new Map<string, Promise<Tree>>();
      const before = previous;
      previous = trees;
      const tree = (oid: string): Promise<Tree> => {
        let found = trees.get(oid) ?? before.get(oid);
        if (found) trees.set(oid, found);
        else {
          const reading = objects.read(oid, 'tree').then(async (object) => {
            budget.read += object.content.length;
            return new Tree(object.content, turn);
          });
          trees.set(oid, (found = reading));
        }
        return found;
      };
      if (merge || (await topsChanged(tree, current.tree, parent.tree, present.map((at) => claims[at]!.path[0]!)))) {
        const still: number[] = [];
        const here = new Set(present);
        for (let at = 0; at < claims.length; at++) {
          const seen = appeared[at];
          if (!here.has(at) && !(merge && seen !== undefined && !seen.merged)) continue;
          if (unreadable[at] !== undefined) continue;
          if (++looked > looks) return answer({ reason: 'work', commit: currentCommit, looks });
          await turn();
          const held = await holds(objects, tree, parent.tree, claims[at]!, budget, at, parentId);
          if (held === true) {
            if (here.has(at)) still.push(at);
            continue;
          }
          const merged = held === false && merge ? await mergedIn(objects, tree, current.parents, claims[at]!, budget, at) : false;
          const why = typeof held === 'object' ? held : typeof merged === 'object' ? merged : undefined;
          if (why) {
            // its name is undecided: none of its claims is followed further (review Z4, F1)
            if (why.unreadable === FILES_SPENT) return answer({ reason: 'files', commit: currentCommit, bytes: budget.fileBytes });
            for (let other = 0; other < claims.length; other++) if (claims[other]!.group === claims[at]!.group) unreadable[other] ??= why.unreadable;
            continue;
          }
          if (here.has(at)) appeared[at] = { commit: currentCommit, depth: depth - 1, ...(merged ? { merged: currentCommit } : {}) };
          else if (merged) appeared[at] = { ...seen!, merged: currentCommit };
        }
        present = still.filter((at) => unreadable[at] === undefined);
        if (present.length > 0 && budget.read > bytes) return answer({ reason: 'bytes', commit: parentId, bytes });
      }
    }
    current = parent;
    currentCommit = parentId;
  }
  return answer();
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

interface CommitFacts {
  tree: string;
  parent: string | undefined;
  /** every parent, the first one first */
  parents: string[];
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
    } catch {
      // a parent that cannot be read (a shallow edge): the claim may have come from it
      return true;
    }
    const held = await holds(objects, tree, facts.tree, claim, budget, at, other);
    if (held !== false) return held;
  }
  return false;
}

// the tree and first parent of a commit (through annotated tags, as a snapshot peels them)
async function commitFacts(objects: ObjectReader, oid: string): Promise<CommitFacts> {
  let object = await objects.read(oid);
  for (let depth = 0; object.type === 'tag' && depth < 16; depth++) {
    const target = /^object ([0-9a-f]{40})\n/.exec(object.content.toString('latin1', 0, 48));
    if (!target) throw new Error(`tag ${oid} names no object`);
    object = await objects.read(target[1]!);
  }
  if (object.type !== 'commit') throw new Error(`${oid} is not a commit (a ${object.type})`);
  // the header only: a message may hold a line that looks like one
  const text = object.content.toString('latin1', 0, Math.min(object.content.length, 8192));
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end + 1);
  const tree = /^tree ([0-9a-f]{40})\n/.exec(head)?.[1];
  if (tree === undefined) throw new Error(`commit ${oid} names no tree`);
  const parents = [...head.matchAll(/\nparent ([0-9a-f]{40})(?=\n)/g)].map((match) => match[1]!);
  return { tree, parent: parents[0], parents };
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

/** A raw git tree object's entries by name, the event loop let go in long trees (a `tools/` tree may hold 100,000 entries). */
async function indexTree(raw: Uint8Array, turn: () => Promise<void>): Promise<TreeIndex> {
  const tree = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const index: TreeIndex = new Map();
  let position = 0;
  for (let entries = 1; position < tree.length; entries++) {
    if (entries % 4096 === 0) await turn();
    const space = tree.indexOf(0x20, position);
    const nul = space < 0 ? -1 : tree.indexOf(0x00, space);
    if (space < 0 || nul < 0 || nul + 21 > tree.length) throw new Error('malformed git tree object');
    index.set(tree.toString('latin1', space + 1, nul), { mode: tree.toString('latin1', position, space), oid: tree.toString('hex', nul + 1, nul + 21) });
    position = nul + 21;
  }
  return index;
}

/** The entry named `name` of a raw git tree object, found by comparing bytes. */
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
