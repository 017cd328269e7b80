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

/** Why a walk stopped with claims still present: the first commit, a shallow clone's edge (or objects missing), the bound. */
export type WalkEnd = { reason: 'root'; commit: string } | { reason: 'shallow'; commit: string } | { reason: 'bound'; commit: string; commits: number };

/**
 * What a first-parent walk saw of each claim: the commit it appeared in (the last one walked back where it was present,
 * its parent lacking it), or none when it was still present where the walk ended; and that end, when it ended so.
 */
export interface HistoryAnswer {
  appeared: Array<{ commit: string; depth: number } | undefined>;
  end?: WalkEnd;
}

/** Asks git history which claims are older: see {@link walkClaims}. */
export type ClaimHistory = (claims: readonly HistoryClaim[]) => Promise<HistoryAnswer>;

/** How many first-parent commits a walk looks at, at most: a clash at a cold start stays a fraction of a second. */
export const HISTORY_BOUND = 300;

const TREE_MODE = '40000';

/**
 * Walks first-parent history back from `commit` while some name still has two or more of its claims present, noting
 * where each one appeared; stops at the first commit, at a shallow clone's edge (or a parent that cannot be read), or
 * after `bound` commits. A commit whose root tree did not change is not looked into, and a tree is read once a commit.
 */
export async function walkClaims(objects: ObjectReader, gitdir: string, commit: string, claims: readonly HistoryClaim[], bound = HISTORY_BOUND): Promise<HistoryAnswer> {
  const appeared: HistoryAnswer['appeared'] = claims.map(() => undefined);
  const shallow = new Set((await readFile(join(gitdir, 'shallow'), 'latin1').catch(() => '')).split('\n').filter(Boolean));
  // a file's verdict by its blob id: most commits leave a definition as it was
  const verdicts = new Map<string, boolean>();
  let present = unsettled(claims, claims.map((_, at) => at));
  let current = await commitFacts(objects, commit);
  let currentCommit = commit;
  for (let depth = 1; present.length > 1; depth++) {
    const parentId = current.parent;
    if (parentId === undefined) return { appeared, end: { reason: 'root', commit: currentCommit } };
    if (shallow.has(currentCommit)) return { appeared, end: { reason: 'shallow', commit: currentCommit } };
    if (depth > bound) return { appeared, end: { reason: 'bound', commit: currentCommit, commits: bound } };
    let parent: CommitFacts;
    try {
      parent = await commitFacts(objects, parentId);
    } catch {
      return { appeared, end: { reason: 'shallow', commit: currentCommit } };
    }
    if (parent.tree !== current.tree) {
      // the root's and tools/'s trees, read once for every claim at this commit (not kept past it: 4 MB a commit at 100,000 tools)
      const trees = new Map<string, Promise<Buffer>>();
      const tree = (oid: string): Promise<Buffer> => {
        let read = trees.get(oid);
        if (!read) trees.set(oid, (read = objects.read(oid, 'tree').then((object) => object.content)));
        return read;
      };
      const still: number[] = [];
      for (const at of present) {
        if (await holds(objects, tree, parent.tree, claims[at]!, verdicts)) still.push(at);
        else appeared[at] = { commit: currentCommit, depth: depth - 1 };
      }
      present = unsettled(claims, still);
    }
    current = parent;
    currentCommit = parentId;
  }
  return { appeared };
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
  return { tree, parent: /\nparent ([0-9a-f]{40})\n/.exec(head)?.[1] };
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
