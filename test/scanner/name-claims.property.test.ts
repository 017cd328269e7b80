import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { buildIndex, parseEntry, type ScanEntry } from '../../src/scanner/build-index.js';
import { makeToolYaml } from '../helpers/git.js';

// Task twin14: of definitions claiming one name (compared case-insensitively) exactly one is served, the choice does
// not depend on the order the entries were read in, and a name (an alias) served before is never lost to a newcomer,
// not even to a tool named like the alias (review Z, Z1).

// case twins, and words that are one another's aliases
const FOLDERS = ['hello', 'Hello', 'HELLO', 'hi', 'Hi', 'x-y', 'X-y', 'x-Y', 'zed'];
const ALIASES = ['hello', 'hi', 'greet', 'GREET', 'wave', 'zed'];

interface Definition {
  folder: string;
  /** a name not the folder's (refused as NAME_MISMATCH: it claims nothing) */
  mismatch: boolean;
  aliases: string[];
}

const definition = (folder: string): fc.Arbitrary<Definition> =>
  fc.record({ folder: fc.constant(folder), mismatch: fc.nat(9).map((n) => n === 0), aliases: fc.uniqueArray(fc.constantFrom(...ALIASES), { maxLength: 2 }) });

// a set of folders, each with its definition (possibly none: an empty set)
const registry = fc.uniqueArray(fc.constantFrom(...FOLDERS), { maxLength: FOLDERS.length }).chain((folders) => fc.tuple(...folders.map(definition)));

function entry(item: Definition): ScanEntry {
  const name = item.mismatch ? `${item.folder}-other` : item.folder;
  const aliases: Record<string, string> = item.aliases.length ? { aliases: `[${item.aliases.join(', ')}]` } : {};
  const path = `tools/${item.folder}/TOOL.hdlp`;
  return parseEntry({ path, folder: item.folder, oid: `${item.folder}-${item.mismatch}-${item.aliases.join('.')}`, content: Buffer.from(makeToolYaml(name, aliases)) });
}

// the listing's order (the paths'), or the one a shuffle gives
function entries(items: readonly Definition[], order?: readonly number[]): ScanEntry[] {
  const sorted = [...items].sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0)).map(entry);
  return order ? order.map((at) => sorted[at]!) : sorted;
}

const build = (list: readonly ScanEntry[], previous?: ToolIndex): ToolIndex => buildIndex('property', 'c', list, '', [], previous);
const served = (index: ToolIndex): Map<string, string> => new Map(index.tools.map((tool) => [tool.name.toLowerCase(), tool.source.path]));
const aliasHolders = (index: ToolIndex): Map<string, string> => new Map(index.tools.flatMap((tool) => tool.aliases.map((alias) => [alias.toLowerCase(), tool.source.path] as const)));

describe('the name a definition is served by', () => {
  it('is held by exactly one definition per lower-cased name, whatever the order the entries were read in', () => {
    fc.assert(
      fc.property(registry.chain((items) => fc.tuple(fc.constant(items), fc.shuffledSubarray([...items.keys()], { minLength: items.length }))), ([items, order]) => {
        const index = build(entries(items));
        const claimants = new Set(items.filter((item) => !item.mismatch).map((item) => item.folder.toLowerCase()));
        expect([...served(index).keys()].sort()).toEqual([...claimants].sort());
        expect(index.tools.length).toBe(claimants.size);
        // every claimant not served is a DUPLICATE_NAME error at its own file
        const duplicates = index.errors.filter((error) => error.code === 'DUPLICATE_NAME').map((error) => error.file).sort();
        const kept = new Set(index.tools.map((tool) => tool.source.path));
        expect(duplicates).toEqual(items.filter((item) => !item.mismatch && !kept.has(`tools/${item.folder}/TOOL.hdlp`)).map((item) => `tools/${item.folder}/TOOL.hdlp`).sort());
        const shuffled = build(entries(items, order));
        expect(served(shuffled)).toEqual(served(index));
        expect(aliasHolders(shuffled)).toEqual(aliasHolders(index));
      }),
    );
  });

  it('is never lost to a newcomer: a name or alias served before keeps its definition while that definition is unchanged', () => {
    fc.assert(
      fc.property(registry, registry, fc.boolean(), (before, added, withPrevious) => {
        const folders = new Set(before.map((item) => item.folder));
        const after = [...before, ...added.filter((item) => !folders.has(item.folder))];
        const previous = build(entries(before));
        const next = build(entries(after), withPrevious ? previous : undefined);
        if (!withPrevious) {
          // with no scan before it, the same as a fresh scan of the new entries, deterministic
          expect(served(next)).toEqual(served(build(entries(after).reverse())));
          return;
        }
        const now = served(next);
        for (const [key, path] of served(previous)) expect(now.get(key), key).toBe(path);
        const holders = aliasHolders(next);
        // an alias stays with its holder, even when a tool is now named so (review Z, Z1: that newcomer is refused)
        for (const [key, path] of aliasHolders(previous)) {
          expect(holders.get(key), key).toBe(path);
          // and no other tool is named so (its holder may be: an alias that is its own name, in another case)
          expect(now.get(key) ?? path, key).toBe(path);
        }
      }),
    );
  });
});
