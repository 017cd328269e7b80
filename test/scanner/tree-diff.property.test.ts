import fc from 'fast-check';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { diffTrees, type TreeChange } from '../../src/scanner/sources/tree-diff.js';
import { commitFiles, git, initRepository, makeTempDir } from '../helpers/git.js';

// Two trees compared from their bytes must give exactly what listing both and comparing them by name gives, whatever
// the names (folders and files, names that are prefixes of one another, where git's order reads a folder as `name/`);
// a tree that is not git's must give an answer or an Error, never a wrong one in silence or a hang.

const execFileAsync = promisify(execFile);

interface Item {
  name: string;
  folder: boolean;
  oid: string;
}

const oid = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('hex'));
// few letters, so that names collide, share prefixes and straddle the `/` git's order puts after a folder's name
const name = fc.stringMatching(/^[a-c.\-\x30é]{1,4}$/);
const item: fc.Arbitrary<Item> = fc.record({ name, folder: fc.boolean(), oid });

/** Git's order of tree entries: by name bytes, a folder's name as if it ended in `/`. */
function gitOrder(a: Item, b: Item): number {
  const key = (entry: Item) => Buffer.from(entry.folder ? `${entry.name}/` : entry.name, 'utf8');
  return Buffer.compare(key(a), key(b));
}

/** A tree as git writes one: one entry per name, in git's order. */
function tree(items: readonly Item[]): Buffer {
  const unique = [...new Map(items.map((entry) => [entry.name, entry])).values()].sort(gitOrder);
  return Buffer.concat(unique.map((entry) => Buffer.concat([Buffer.from(`${entry.folder ? '40000' : '100644'} ${entry.name}\0`, 'utf8'), Buffer.from(entry.oid, 'hex')])));
}

function parse(raw: Buffer): Map<string, { mode: string; oid: string }> {
  const items = new Map<string, { mode: string; oid: string }>();
  for (let position = 0; position < raw.length; ) {
    const space = raw.indexOf(0x20, position);
    const nul = raw.indexOf(0, space);
    // a file and a folder may share a name in a tree: keyed as git orders them
    const mode = raw.toString('latin1', position, space);
    items.set(`${raw.toString('utf8', space + 1, nul)}${mode === '40000' ? '/' : ''}`, { mode, oid: raw.toString('hex', nul + 1, nul + 21) });
    position = nul + 21;
  }
  return items;
}

/** The changes found by listing both trees whole, keyed as `parse` keys them. */
function naive(before: Buffer, after: Buffer): Map<string, Omit<TreeChange, 'name'>> {
  const old = parse(before);
  const next = parse(after);
  const changes = new Map<string, Omit<TreeChange, 'name'>>();
  for (const [key, was] of old) {
    const is = next.get(key);
    if (!is) changes.set(key, { before: was });
    else if (is.mode !== was.mode || is.oid !== was.oid) changes.set(key, { before: was, after: is });
  }
  for (const [key, is] of next) if (!old.has(key)) changes.set(key, { after: is });
  return changes;
}

function keyed(changes: readonly TreeChange[]): Map<string, Omit<TreeChange, 'name'>> {
  return new Map(changes.map(({ name: entry, ...change }) => [`${entry}${(change.after ?? change.before)!.mode === '40000' ? '/' : ''}`, change]));
}

describe('diffTrees', () => {
  describe('when both trees are in git order', () => {
    it('gives exactly the entries added, removed and changed', () => {
      fc.assert(
        fc.property(fc.array(item, { maxLength: 30 }), fc.array(fc.tuple(fc.nat(40), fc.option(item)), { maxLength: 8 }), (items, edits) => {
          // the second tree is the first edited: entries dropped, replaced or added, as commits do
          const edited = [...items];
          for (const [at, replacement] of edits) {
            if (replacement === null) edited.splice(at % Math.max(edited.length, 1), 1);
            else edited.splice(at % (edited.length + 1), 0, replacement);
          }
          const before = tree(items);
          const after = tree(edited);
          const changes = diffTrees(before, after);
          expect(changes).toBeDefined();
          expect(keyed(changes!)).toEqual(naive(before, after));
        }),
      );
    });

    it('agrees with git on the trees git wrote, a folder sorted as its name and a slash', async () => {
      const temp = await makeTempDir('hldp-tree-diff-');
      try {
        const repo = join(temp.path, 'repo');
        await initRepository(repo);
        // git's order here: a-b, a.c/, a/ ('-' < '.' < '/'), unlike the names' own order
        const first = await commitFiles(repo, { 'a/x': '1', 'a-b': '2', 'a.c/x': '3', 'ab/x': '4' });
        const second = await commitFiles(repo, { 'a/x': 'changed', 'a.c/y': 'added', 'ab/x': null, 'aa': 'new file' });
        const raw = async (commit: string) => (await execFileAsync('git', ['cat-file', 'tree', `${commit}^{tree}`], { cwd: repo, encoding: 'buffer' })).stdout;
        const before = await raw(first);
        const after = await raw(second);
        const treeOid = async (commit: string, path: string) => (await git(repo, 'rev-parse', `${commit}:${path}`)).trim();
        expect(diffTrees(before, after)).toEqual([
          { name: 'a.c', before: { mode: '40000', oid: await treeOid(first, 'a.c') }, after: { mode: '40000', oid: await treeOid(second, 'a.c') } },
          { name: 'a', before: { mode: '40000', oid: await treeOid(first, 'a') }, after: { mode: '40000', oid: await treeOid(second, 'a') } },
          { name: 'aa', after: { mode: '100644', oid: await treeOid(second, 'aa') } },
          { name: 'ab', before: { mode: '40000', oid: await treeOid(first, 'ab') } },
        ]);
      } finally {
        await temp.cleanup();
      }
    });
  });

  describe('when a tree is not one git wrote', () => {
    it('answers undefined for a duplicate name among the entries it compares', () => {
      const one = { name: 'x', folder: true, oid: '1'.repeat(40) };
      const entry = (item: Item) => Buffer.concat([Buffer.from(`40000 ${item.name}\0`), Buffer.from(item.oid, 'hex')]);
      const before = Buffer.concat([entry(one)]);
      const after = Buffer.concat([entry({ ...one, oid: '2'.repeat(40) }), entry({ ...one, oid: '3'.repeat(40) })]);
      expect(diffTrees(before, after)).toBeUndefined();
    });

    it('gives changes or an Error for any bytes', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 120 }), fc.uint8Array({ maxLength: 120 }), (before, after) => {
          try {
            const changes = diffTrees(before, after);
            if (changes) for (const change of changes) expect(change.before ?? change.after).toBeDefined();
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
          }
        }),
      );
    });
  });
});
