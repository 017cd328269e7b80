import fc from 'fast-check';
import { distance } from 'fastest-levenshtein';
import { describe, expect, it } from 'vitest';
import type { ToolSequence } from '../../src/core/index.js';
import { splitIdentifiers } from '../../src/matcher/analyze.js';
import { nearNames } from '../../src/matcher/near-names.js';
import { runs } from '../helpers/property-runs.js';

// near names as they were worked out for every name and alias (NFKC, Unicode classes, a word list each), before
// names of ASCII and CJK ideographs alone took plain loops (issue #18: ~1.2 s of CPU an unknown name at 100,000 tools)
function referenceScores(names: readonly string[], aliases: ReadonlyArray<[text: string, position: number]>, name: string): Array<{ name: string; score: number }> {
  const normalise = (text: string): string => text.normalize('NFKC').toLowerCase().replace(/[\s_.-]+/g, '-');
  const words = (text: string): string[] =>
    splitIdentifiers(text)
      .flatMap((part) => part.toLowerCase().split(/[\s-]+/))
      .filter((word) => word.length > 1);
  const wanted = normalise(name);
  const wantedWords = new Set(words(name));
  const similarity = (known: string): number => {
    const candidate = normalise(known);
    const longest = Math.max(wanted.length, candidate.length);
    if (longest === 0) return 0;
    const edits = distance(wanted, candidate);
    const spelling = edits <= Math.max(2, Math.floor(longest / 3)) ? 1 - edits / longest : 0;
    const knownWords = words(known);
    const shared = knownWords.filter((word) => wantedWords.has(word)).length;
    return Math.max(spelling, shared === 0 ? 0 : (0.5 * shared) / Math.max(knownWords.length, wantedWords.size));
  };
  const best = names.map(similarity);
  for (const [text, position] of aliases) best[position] = Math.max(best[position]!, similarity(text));
  return names
    .map((known, position) => ({ name: known, score: Math.round(best[position]! * 1000) / 1000 }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
}

// the boundaries the loops must find as splitIdentifiers does (case changes, digits, separators), CJK ideographs,
// and what takes the general way: fullwidth letters, sigma, dotted I, accents, a combining mark, ideographic space
const CHARACTERS = [...'abcXYZ09 _.:-\t', '别', '名', '工', '具', '㐀', ...'ＡｔΣσςİéÉ', '\u0301', '\u3000', '\u00a0'];
const characters = fc.array(fc.constantFrom(...CHARACTERS), { maxLength: 12 }).map((parts) => parts.join(''));
// names made of words the name asked for shares: how the word overlap, not the spelling, decides a score
const TOKENS = ['get', 'Get', 'user', 'User', 'ID', 'id', 'HTTP', 'Server', 'x1', '2', 'a', 'ΣΑΣ', 'σας', '别名', 'Ｔool', 'é'];
const SEPARATING = ['', '', '-', '_', '.', ':', ' ', '\t', '--', '\u3000'];
const tokens = fc.array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom(...SEPARATING)), { maxLength: 5 }).map((parts) => parts.map(([token, separator]) => token + separator).join(''));
const text = fc.oneof(characters, tokens);
const sequenceOf = (names: readonly string[]): ToolSequence => ({ length: names.length, at: (position) => ({ name: names[position], display: `display ${position}` }) as never, nameAt: (position) => names[position] });

describe('nearNames', () => {
  it('scores every name and alias as NFKC, Unicode classes and a word list each do', () => {
    fc.assert(
      fc.property(
        // at most three tools: every tool with a score is then listed, so each score is compared
        fc.uniqueArray(text.filter((name) => name.length > 0), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(text, fc.nat()), { maxLength: 4 }),
        fc.oneof(text, fc.constantFrom('tool-00001x', 'getUserID', 'HTTPServer', '别名tool', 'ΣΑΣ_x')),
        (unsorted, aliasPairs, name) => {
          const names = [...unsorted].sort();
          const aliases = aliasPairs.map(([alias, position]): [string, number] => [alias, position % names.length]);
          const near = nearNames(sequenceOf(names), { texts: aliases.map(([alias]) => alias), positions: aliases.map(([, position]) => position) }, name);
          expect(near.map(({ name: near, score }) => ({ name: near, score }))).toEqual(referenceScores(names, aliases, name).slice(0, 3));
        },
      ),
      { numRuns: runs(3000) },
    );
  });

  it('finds the same near names among 2,000 generated tools and their aliases', () => {
    const names = Array.from({ length: 2000 }, (_, at) => `tool-${String(at).padStart(6, '0')}`);
    const aliases = names.flatMap((name, position): Array<[string, number]> => [[`${name}-alias`, position], [`别名${name}`, position], [`${name.toUpperCase()}_Alias`, position]]);
    const written = { texts: aliases.map(([alias]) => alias), positions: aliases.map(([, position]) => position) };
    for (const name of ['tool-00001x', 'tool-0000x1', 'TOOL_000123', 'toolAlias', '别名tool-000777', 'alias', 'shel-exec']) {
      expect(nearNames(sequenceOf(names), written, name).map(({ name: near, score }) => ({ name: near, score }))).toEqual(referenceScores(names, aliases, name).slice(0, 3));
    }
  });
});
