import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIndex, parseEntry, type ScanEntry } from '../../src/scanner/build-index.js';
import { patchIndex } from '../../src/scanner/patch-index.js';
import { makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// A rescan may take the previous index and swap changed definitions in, instead of assembling it again: whenever it
// does, the index must be exactly the one assembled from the new entries (collisions, aliases, toolsets, policies).

const FOLDERS = ['alpha', 'beta', 'gamma', 'delta', 'Alpha', 'omega'];
const WORDS = [...FOLDERS, 'shared', 'other', 'g1', 'g2'];

interface Variant {
  name: number; // 0: the folder's own name; otherwise another word (a mismatch the parser reports)
  aliases: string[];
  group: string | undefined;
  intent: string;
  broken: boolean;
}

const variant = fc.record({
  name: fc.nat(8).map((n) => (n < 6 ? 0 : n)),
  aliases: fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 }),
  group: fc.constantFrom(undefined, 'g1', 'g2'),
  intent: fc.constantFrom('reads things', 'writes things', 'lists things'),
  broken: fc.nat(9).map((n) => n < 2),
});

function toolEntry(folder: string, v: Variant, oid: string): ScanEntry {
  const name = v.name === 0 ? folder : WORDS[v.name % WORDS.length]!;
  const overrides: Record<string, string> = { name, intent: v.intent };
  if (v.aliases.length) overrides.aliases = `[${v.aliases.join(', ')}]`;
  if (v.group) overrides.group = v.group;
  if (v.broken) overrides.executor = 'nope';
  return parseEntry({ path: `tools/${folder}/TOOL.hdlp`, folder, oid, content: Buffer.from(makeToolYaml(name, overrides)) });
}

function toolsetEntry(members: string[], oid: string): ScanEntry {
  return parseEntry({ kind: 'toolset', path: 'toolsets/set/TOOLSET.hdlp', folder: 'set', oid, content: Buffer.from(`name: set\ndescription: a set\ntools: [${members.join(', ')}]\n`) });
}

describe('patchIndex', () => {
  it('gives exactly the index assembled afresh whenever it applies, and declines otherwise', () => {
    let applied = 0;
    fc.assert(
      fc.property(
        fc.array(variant, { minLength: FOLDERS.length, maxLength: FOLDERS.length }),
        fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 }),
        // an edit is a new definition, or (as most commits) the same one with another intent
        fc.array(fc.tuple(fc.nat(FOLDERS.length), variant, fc.boolean()), { minLength: 1, maxLength: 3 }),
        fc.option(fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 })),
        (variants, members, edits, newMembers) => {
          const before: ScanEntry[] = [...FOLDERS.map((folder, at) => toolEntry(folder, variants[at]!, `v0-${at}`)), toolsetEntry(members, 'set-0')];
          const after = [...before];
          const current = [...variants];
          edits.forEach(([at, edit, textOnly], round) => {
            // position FOLDERS.length is the toolset
            if (at === FOLDERS.length) {
              after[at] = toolsetEntry(newMembers ?? members, `set-${round + 1}`);
              return;
            }
            current[at] = textOnly ? { ...current[at]!, intent: edit.intent } : edit;
            after[at] = toolEntry(FOLDERS[at]!, current[at]!, `v${round + 1}-${at}`);
          });
          const previous = buildIndex('s', 'c0', before, 't0');
          const changes = after.flatMap((entry, at) => (entry === before[at] ? [] : [{ before: before[at]!, after: entry }]));
          const patched = patchIndex(previous, changes, 'c1', 't1');
          if (patched === undefined) return;
          applied++;
          expect(patched).toEqual(buildIndex('s', 'c1', after, 't1'));
        },
      ),
      { numRuns: runs(120) },
    );
    // the common case (a definition's text changes, its names do not) is among those tried
    expect(applied).toBeGreaterThan(0);
  });

  it('swaps a changed definition in when its name, aliases and group stay', () => {
    const plain: Variant = { name: 0, aliases: ['shared'], group: 'g1', intent: 'reads things', broken: false };
    const before = FOLDERS.map((folder, at) => toolEntry(folder, { ...plain, aliases: at === 1 ? ['shared'] : [] }, `v0-${at}`));
    const after = [...before];
    after[1] = toolEntry('beta', { ...plain, intent: 'writes things' }, 'v1-1');
    const patched = patchIndex(buildIndex('s', 'c0', before, 't0'), [{ before: before[1]!, after: after[1]! }], 'c1', 't1');
    expect(patched).toEqual(buildIndex('s', 'c1', after, 't1'));
    expect(patched?.tools.find((tool) => tool.name === 'beta')?.intent).toBe('writes things');
  });
});
