import { ENTRY_KINDS, ENTRY_LAYOUT } from '../../core/index.js';
import type { EntryDiff, ToolEntry } from './source.js';
import { diffTrees, type TreeItem } from './tree-diff.js';

const TREE_MODE = '40000';

/**
 * The entries that differ between two commits' root trees, top-down: a kind's folder (`tools/`, …) whose tree id
 * is the same at both is skipped unread; one that differs has its two trees compared entry by entry as bytes
 * (`diffTrees`). `readTree` gives a tree's raw content by id; `flatModes` learns the mode of each flat entry
 * (policies/<name>.hdlp) it reports, as a listing would. Undefined when a tree is not in git's order.
 */
export async function diffEntryTrees(before: Uint8Array, after: Uint8Array, readTree: (oid: string) => Promise<Uint8Array>, flatModes: Map<string, string>): Promise<EntryDiff | undefined> {
  const roots = diffTrees(before, after);
  if (!roots) return undefined;
  const diff: EntryDiff = { changed: [], added: [], removed: [] };
  for (const kind of ENTRY_KINDS) {
    const { folder: top, file, flat } = ENTRY_LAYOUT[kind];
    const root = roots.find((change) => change.name === top && (change.before?.mode === TREE_MODE || change.after?.mode === TREE_MODE));
    if (!root) continue;
    const old = root.before?.mode === TREE_MODE ? await readTree(root.before.oid) : new Uint8Array(0);
    const next = root.after?.mode === TREE_MODE ? await readTree(root.after.oid) : new Uint8Array(0);
    const changes = diffTrees(old, next);
    if (!changes) return undefined;
    // what a listing keeps of an item: a folder (a flat kind: a file named <entry><file>)
    const entryOf = (name: string, item: TreeItem | undefined): ToolEntry | undefined => {
      if (!item) return undefined;
      if (flat) return item.mode !== TREE_MODE && name.endsWith(file) && name.length > file.length ? { kind, folder: name.slice(0, -file.length), oid: item.oid } : undefined;
      if (item.mode !== TREE_MODE) return undefined;
      return kind === 'tool' ? { folder: name, oid: item.oid } : { kind, folder: name, oid: item.oid };
    };
    for (const change of changes) {
      const was = entryOf(change.name, change.before);
      const is = entryOf(change.name, change.after);
      if (is && flat) flatModes.set(`${kind}/${is.folder}`, change.after!.mode);
      if (was && is) {
        if (was.oid !== is.oid) diff.changed.push(is);
      } else if (is) diff.added.push(is);
      else if (was) diff.removed.push(was);
    }
  }
  return diff;
}
