/** A tree's entries by name (the name's bytes as latin1, so every name keeps its own key). */
type TreeIndex = Map<string, { mode: string; oid: string }>;

/** How many names are looked for in a tree by a linear search before it is indexed: a walk of two claims over a 100,000-entry tree indexes none. */
const LINEAR_LOOKS = 16;

/** A tree read at a commit: its first few names found by a linear search, then all through an index built once (review Z4, F5). */
export class Tree {
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
