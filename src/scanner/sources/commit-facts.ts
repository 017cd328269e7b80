import type { ObjectReader } from './object-reader.js';

/**
 * The most bytes of a commit's header (its tree, parents, author and committer lines, before the message) read:
 * ~21,000 parents. One past it makes the history unreadable, and the clash fails closed: 8,192 bytes hid an octopus
 * merge's parents past the ~169th, and with them the line the reviewed tool came in by (review Z4, F3).
 */
export const MAX_COMMIT_HEADER = 1024 * 1024;

/** History the walk cannot read at all (a commit header past `MAX_COMMIT_HEADER`): no claim is dated, every clash fails closed. */
export class UnreadableHistory extends Error {}

/** A commit's root tree and parents, as the history walk reads them. */
export interface CommitFacts {
  tree: string;
  parent: string | undefined;
  /** every parent, the first one first */
  parents: string[];
}

// the tree and parents of a commit (through annotated tags, as a snapshot peels them), its whole header read
export async function commitFacts(objects: ObjectReader, oid: string): Promise<CommitFacts> {
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

