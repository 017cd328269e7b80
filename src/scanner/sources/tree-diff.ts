/** One entry of a git tree: its mode (`40000` a folder, `100644` a file, …) and object id. */
export interface TreeItem {
  mode: string;
  oid: string;
}

/** A name whose entry differs between two trees: `before` absent when it was added, `after` when it was removed. */
export interface TreeChange {
  name: string;
  before?: TreeItem;
  after?: TreeItem;
}

const SPACE = 0x20;
const SLASH = 0x2f;
const ID_BYTES = 20;
// bytes compared natively at once while looking for the next difference
const CHUNK = 1024;

/** One tree being walked: where its current entry starts, and the last entry passed (each name must sort after it). */
interface Walk {
  tree: Buffer;
  at: number;
  last: Entry | undefined;
}

/** An entry's byte positions in its tree: `<mode> <name>\0<id>` from `start` to `end`. */
interface Entry {
  start: number;
  space: number;
  nul: number;
  end: number;
  folder: boolean;
}

/**
 * The entries that differ between two raw git tree objects (`<mode> <name>\0<20-byte id>` repeated, sorted as git
 * sorts them). Runs of bytes that are the same in both are passed over by native comparison, a kilobyte at a time,
 * and only the entries where they differ are decoded: a one-file commit at 10,000 tools compares the 380 KB trees
 * and decodes one entry of each. Undefined when an entry it looks at is not in git's order after the one before
 * (a duplicate name, or a tree no git wrote): the caller then lists the tree whole. Entries that are the same in
 * both trees are not checked: they change nothing. Throws on a malformed tree.
 */
export function diffTrees(before: Uint8Array, after: Uint8Array): TreeChange[] | undefined {
  const old: Walk = { tree: asBuffer(before), at: 0, last: undefined };
  const next: Walk = { tree: asBuffer(after), at: 0, last: undefined };
  const changes: TreeChange[] = [];
  for (;;) {
    passSameEntries(old, next);
    const was = old.at < old.tree.length ? entryAt(old.tree, old.at) : undefined;
    const is = next.at < next.tree.length ? entryAt(next.tree, next.at) : undefined;
    if (!was && !is) return changes;
    if ((was && !inOrder(old, was)) || (is && !inOrder(next, is))) return undefined;
    const order = !was ? 1 : !is ? -1 : compareNames(old.tree, was, next.tree, is);
    if (order === 0) {
      changes.push({ name: nameOf(next.tree, is!), before: itemOf(old.tree, was!), after: itemOf(next.tree, is!) });
      pass(old, was!);
      pass(next, is!);
    } else if (order < 0) {
      changes.push({ name: nameOf(old.tree, was!), before: itemOf(old.tree, was!) });
      pass(old, was!);
    } else {
      changes.push({ name: nameOf(next.tree, is!), after: itemOf(next.tree, is!) });
      pass(next, is!);
    }
  }
}

function asBuffer(raw: Uint8Array): Buffer {
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
}

// moves both walks over the whole entries from where they stand that are the same bytes in both
function passSameEntries(old: Walk, next: Walk): void {
  const same = sameBytes(old.tree, old.at, next.tree, next.at);
  if (same === 0) return;
  const limit = old.at + same;
  let entry: Entry | undefined;
  for (let start = old.at; start < limit; ) {
    const found = entryAt(old.tree, start);
    if (found.end > limit) break;
    entry = found;
    start = found.end;
  }
  if (!entry) return;
  const moved = entry.end - old.at;
  old.last = entry;
  next.last = { start: entry.start - old.at + next.at, space: entry.space - old.at + next.at, nul: entry.nul - old.at + next.at, end: entry.end - old.at + next.at, folder: entry.folder };
  old.at += moved;
  next.at += moved;
}

// how many bytes from `a[aStart]` and `b[bStart]` on are the same
function sameBytes(a: Buffer, aStart: number, b: Buffer, bStart: number): number {
  const length = Math.min(a.length - aStart, b.length - bStart);
  for (let offset = 0; offset < length; offset += CHUNK) {
    const size = Math.min(CHUNK, length - offset);
    if (a.compare(b, bStart + offset, bStart + offset + size, aStart + offset, aStart + offset + size) !== 0) {
      let same = offset;
      while (a[aStart + same] === b[bStart + same]) same++;
      return same;
    }
  }
  return length;
}

function entryAt(tree: Buffer, start: number): Entry {
  let space = start;
  while (space < tree.length && tree[space] !== SPACE) space++;
  let nul = space + 1;
  while (nul < tree.length && tree[nul] !== 0) nul++;
  const end = nul + 1 + ID_BYTES;
  if (space === start || space >= tree.length || nul >= tree.length || end > tree.length) throw new Error('malformed git tree object');
  // a folder's mode is 40000
  const folder = space - start === 5 && tree[start] === 0x34 && tree[start + 1] === 0x30 && tree[start + 2] === 0x30 && tree[start + 3] === 0x30 && tree[start + 4] === 0x30;
  return { start, space, nul, end, folder };
}

function pass(walk: Walk, entry: Entry): void {
  walk.last = entry;
  walk.at = entry.end;
}

// whether the entry sorts strictly after the one passed before it (git refuses trees that do not)
function inOrder(walk: Walk, entry: Entry): boolean {
  return !walk.last || compareNames(walk.tree, walk.last, walk.tree, entry) < 0;
}

/** git's order of tree entries (`base_name_compare`): by name bytes, a folder's name read as if it ended in `/`. */
function compareNames(a: Buffer, aEntry: Entry, b: Buffer, bEntry: Entry): number {
  const aName = aEntry.space + 1;
  const bName = bEntry.space + 1;
  const aLength = aEntry.nul - aName;
  const bLength = bEntry.nul - bName;
  const common = Math.min(aLength, bLength);
  for (let offset = 0; offset < common; offset++) {
    const order = a[aName + offset]! - b[bName + offset]!;
    if (order !== 0) return order;
  }
  const aNext = common < aLength ? a[aName + common]! : aEntry.folder ? SLASH : 0;
  const bNext = common < bLength ? b[bName + common]! : bEntry.folder ? SLASH : 0;
  return aNext - bNext;
}

function nameOf(tree: Buffer, entry: Entry): string {
  return tree.toString('utf8', entry.space + 1, entry.nul);
}

function itemOf(tree: Buffer, entry: Entry): TreeItem {
  return { mode: tree.toString('latin1', entry.start, entry.space), oid: tree.toString('hex', entry.nul + 1, entry.end) };
}
