import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runToEnd } from '../../src/core/index.js';
import { buildIndex, parseEntry, type ScanEntry } from '../../src/scanner/build-index.js';
import { summarise, type EntrySummary, type ToolSummary } from '../../src/scanner/entry-summary.js';
import { storeIndexSteps, storeSummaries } from '../../src/scanner/stored-index.js';
import { makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// A cold scan keeps only each entry's summary and writes the entry to the cache file: the index it stores from the
// summaries must be exactly the one stored from an index assembled from the entries (collisions, aliases taken by
// another tool, groups, toolsets and skills checked), and each line must read back as the entry.

const FOLDERS = ['alpha', 'beta', 'gamma', 'delta', 'Alpha', 'omega', 'ünï'];
const WORDS = [...FOLDERS, 'shared', 'other', 'g1', 'g2'];

const variant = fc.record({
  name: fc.nat(9).map((n) => (n < 6 ? 0 : n)),
  aliases: fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 }),
  group: fc.constantFrom(undefined, 'g1', 'g2'),
  display: fc.string({ maxLength: 8, unit: 'binary' }),
  broken: fc.nat(9).map((n) => n < 2),
  present: fc.nat(9).map((n) => n < 8),
});

function toolEntry(folder: string, v: typeof variant extends fc.Arbitrary<infer T> ? T : never, oid: string): ScanEntry {
  const name = v.name === 0 ? folder : WORDS[v.name % WORDS.length]!;
  const overrides: Record<string, string> = { name, display: JSON.stringify(v.display) };
  if (v.aliases.length) overrides.aliases = `[${v.aliases.join(', ')}]`;
  if (v.group) overrides.group = v.group;
  if (v.broken) overrides.executor = 'nope';
  return parseEntry({ path: `tools/${folder}/TOOL.hdlp`, folder, oid, content: Buffer.from(makeToolYaml(name, overrides)) });
}

function summariesOf(entries: readonly ScanEntry[]): EntrySummary[] {
  return entries.map((entry, position) => {
    const { summary } = summarise(entry);
    if ('tool' in summary && summary.tool) (summary.tool as ToolSummary).position = position;
    return summary;
  });
}

describe('storeSummaries', () => {
  it('stores from the summaries exactly the index stored from the entries, and each line reads back as its entry', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(variant, { minLength: FOLDERS.length, maxLength: FOLDERS.length }),
        fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 }),
        fc.option(fc.constantFrom(...WORDS)),
        async (variants, members, skillToolset) => {
          const entries: ScanEntry[] = FOLDERS.flatMap((folder, at) => (variants[at]!.present ? [toolEntry(folder, variants[at]!, `oid-${at}`)] : []));
          entries.push(parseEntry({ kind: 'toolset', path: 'toolsets/set/TOOLSET.hdlp', folder: 'set', oid: 'oid-set', content: Buffer.from(`name: set\ndescription: a set\ntools: [${members.join(', ')}]\n`) }));
          const toolset = skillToolset === null ? '' : `toolset: ${skillToolset}\n`;
          entries.push(parseEntry({ kind: 'skill', path: 'skills/care/SKILL.md', folder: 'care', oid: 'oid-care', content: Buffer.from(`---\nname: care\ndescription: how to care\n${toolset}---\n# care\n`) }));
          const built = buildIndex('src', 'c0', entries, 't0');
          const expected = runToEnd(storeIndexSteps(built, entries));
          expect(await storeSummaries('src', 'c0', summariesOf(entries), 't0')).toEqual(expected);
          for (const entry of entries) {
            const { line } = summarise(entry);
            expect(line.every((byte) => byte < 0x80)).toBe(true);
            expect(JSON.parse(Buffer.from(line).toString('latin1'))).toEqual(JSON.parse(JSON.stringify(entry)));
          }
        },
      ),
      { numRuns: runs(150) },
    );
  });
});
