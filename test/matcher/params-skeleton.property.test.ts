// Review userZ10, U10-15: `hldp match` ended with "call one with: hldp call weather --params '{...}'", two lines under
// `params: { city: string }`; it now writes the required params as JSON to fill in, one shell word to paste. The names
// come from a definition anyone with push access writes: a quote, `$(…)`, a newline or a terminal escape in one must
// neither end the word, run anything, nor reach the terminal raw, and the word must give back exactly those names.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hiddenCharacters } from '../../src/core/index.js';
import { formatMatchResult } from '../../src/matcher/index.js';
import { runs } from '../helpers/property-runs.js';

const HOSTILE = ["it's", 'say "hi"', '$(touch /tmp/hldp-pwned)', '`id`', 'a\nb', 'tab\there', '\u001b]0;PWNED\u0007', '\u202eexe.txt', 'x\u0085y', 'line\u2028sep', '\\', "'", "''", '城市', '\ud800'];

/** The hint's `--params` word for a tool whose params are `names`, all required, as `hldp match` prints it. */
function hintWord(names: readonly string[]): string {
  const schema = { type: 'object', properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])), required: [...names] };
  const text = formatMatchResult({ found: true, confidence: 'high', stage: 'lexical', candidates: [{ name: 'weather', display: 'Weather', intent: 'the weather', score: 9, matched: [], params_schema: schema }] });
  const line = text.split('\n').find((entry) => entry.startsWith('call one with: '))!;
  return line.slice('call one with: hldp call weather --params '.length);
}

/** What a POSIX shell makes of a word of single-quoted parts joined by `\'` (the only form the hint writes), or undefined. */
function unquoted(word: string): string | undefined {
  if (!/^'[^']*'(?:\\''[^']*')*$/.test(word)) return undefined;
  return word.slice(1, -1).split("'\\''").join("'");
}

// controls and what a terminal acts on or a reader does not see
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]/;

describe("hldp match's call hint", () => {
  it('writes the required params as JSON to fill in, each value of its type', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 }, unit: { enum: ['c', 'f'] }, hourly: { type: 'boolean' }, note: { type: 'string' } }, required: ['city', 'days', 'unit', 'hourly'] };
    const text = formatMatchResult({ found: true, confidence: 'high', stage: 'lexical', candidates: [{ name: 'weather', display: 'Weather', intent: 'the weather', score: 9, matched: [], params_schema: schema }] });
    expect(text.split('\n').at(-1)).toBe(`call one with: hldp call weather --params '{"city": "…", "days": 1, "unit": "c", "hourly": false}'`);
  });

  it('gives back every hostile name exactly through a real shell, running nothing, and nothing raw reaches the terminal', () => {
    const word = hintWord(HOSTILE);
    expect(word).not.toMatch(UNSAFE);
    expect(hiddenCharacters(word)).toEqual([]);
    const shell = spawnSync('sh', ['-c', `printf %s ${word}`], { encoding: 'utf8' });
    expect(shell.status, shell.stderr).toBe(0);
    expect(Object.keys(JSON.parse(shell.stdout) as object)).toEqual(HOSTILE);
  });

  it('holds for any names: one quoted word, the same names back, nothing unsafe', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: fc.oneof(fc.constantFrom("'", '"', '\\', '\n', '$', '`', '\u001b', '\u202e', '\u2028', '\u0085', '\u200b', '\ud800'), fc.string({ unit: 'binary', maxLength: 1 })), maxLength: 8 }), { maxLength: 5 }), (names) => {
        const word = hintWord(names);
        expect(word).not.toMatch(UNSAFE);
        expect(hiddenCharacters(word)).toEqual([]);
        const json = unquoted(word);
        expect(json, word).toBeDefined();
        expect(Object.keys(JSON.parse(json!) as object)).toEqual(names);
      }),
      { numRuns: runs(300) },
    );
  });
});
