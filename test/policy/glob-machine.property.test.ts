// A policy glob's RegExp runs as a state machine (src/policy/regexp-machine.ts), linear in the path, where picomatch's
// RegExp backtracks: its decision must be picomatch's own wherever picomatch finishes. Random globs — `**`, stars,
// classes, braces, extglobs, negations, escapes — against random paths of a small alphabet that holds the characters
// that matter (`/`, `.`, line terminators, a surrogate pair, the glob's own specials), in both readings (`dot`).
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { globMachine, globMatcher } from '../../src/policy/glob-matcher.js';
import { RegexpMachine } from '../../src/policy/regexp-machine.js';
import { runs } from '../helpers/property-runs.js';

const piece = fc.constantFrom(
  '**', '*', '?', 'a', 'b', 'x', '.', '..', 'secret', '*.key', '.*', 'a*b', '*a*', '??',
  '[ab]', '[!a]', '[^a-c]', '[a-]', '[]a]', '[[:alpha:]]', '[\\]]', '{a,b}', '{a,*.key}', '{1..3}', '{,a}',
  '!(a)', '!(*.key)', '+(a|b)', '*(a)', '?(a|)', '@(a|b)', '\\*', '\\.', '(a|b)', 'a{2}', '$', '^', '.a', '\u00e9', '-',
);
const separator = fc.constantFrom('/', '/', '/', '');
const glob = fc
  .tuple(fc.constantFrom('', '', '', '!', './', '/'), fc.array(fc.tuple(piece, separator), { minLength: 1, maxLength: 5 }), fc.constantFrom('', '', '/'))
  .map(([head, pieces, tail]) => head + pieces.map(([text, after]) => text + after).join('').replace(/\/+$/, '') + tail)
  .filter((text) => text.length > 0 && compiles(text));
function compiles(text: string): boolean {
  try {
    picomatch.makeRe(text);
    return true;
  } catch {
    return false;
  }
}
const unit = fc.constantFrom('a', 'b', 'x', '.', '/', '/', 'k', 'e', 'y', '-', '1', '\n', '\u2028', '\u00e9', '\ud83d\ude00', '\\', '[', ']', '*', '!', '(', '{');
const word = fc.constantFrom('secret', 'a', 'b', 'x', '.', '..', 'id.key', '.hidden', 'a/b');
const path = fc.array(fc.oneof(unit, word), { maxLength: 14 }).map((parts) => parts.join(''));
const dot = fc.boolean();

// the machine's decision, where it runs the glob's RegExp; picomatch's otherwise
function machineDecision(pattern: string, dotted: boolean, text: string): boolean {
  const compiled = picomatch(pattern, { dot: dotted });
  return (globMachine(compiled, pattern)?.matches ?? compiled)(text);
}

describe('a glob run as a state machine', () => {
  it('decides as picomatch decides, on random globs and paths, in both readings', () => {
    fc.assert(
      fc.property(glob, path, dot, (pattern, text, dotted) => {
        const expected = picomatch(pattern, { dot: dotted })(text);
        expect(machineDecision(pattern, dotted, text)).toBe(expected);
        // and the condition's matcher, which runs whichever engine is charged less for the path
        expect(globMatcher(picomatch, pattern, { dot: dotted })(text)).toBe(expected);
      }),
      { numRuns: runs(1_500) },
    );
  });

  it('decides a path that the glob itself could have spelt as picomatch does', () => {
    // paths made of the glob's own pieces are the ones likeliest to match: the machine is checked where it says yes
    const spelt = fc.tuple(glob, fc.array(fc.oneof(piece.map((text) => text.replace(/[*?!()[\]{}|^$\\]/g, '')), unit, word), { maxLength: 8 }), dot);
    fc.assert(
      fc.property(spelt, ([pattern, parts, dotted]) => {
        const text = parts.join('/');
        expect(machineDecision(pattern, dotted, text)).toBe(picomatch(pattern, { dot: dotted })(text));
      }),
      { numRuns: runs(1_500) },
    );
  });

  it('tests every RegExp it runs as RegExp.prototype.test does', () => {
    fc.assert(
      fc.property(glob, path, dot, (pattern, text, dotted) => {
        const regex = picomatch.makeRe(pattern, { dot: dotted, windows: false });
        const machine = RegexpMachine.of(regex.source);
        if (machine !== undefined) expect(machine.test(text)).toBe(regex.test(text));
      }),
      { numRuns: runs(1_500) },
    );
  });

  it('runs every glob without an extglob or a negation, and `!(a)`, as a machine', () => {
    const plain = glob.filter((text) => !/[!+@]\(|\*\(|\?\(|^!/.test(text));
    fc.assert(
      fc.property(plain, dot, (pattern, dotted) => {
        expect(RegexpMachine.of(picomatch.makeRe(pattern, { dot: dotted, windows: false }).source)).toBeDefined();
      }),
      { numRuns: runs(500) },
    );
    expect(RegexpMachine.of(picomatch.makeRe('**/!(a)/**', { dot: true }).source)).toBeDefined();
    // an extglob over a run of any length stays on picomatch's RegExp, charged by its estimate
    expect(RegexpMachine.of(picomatch.makeRe('!(*.key)', { dot: true }).source)).toBeUndefined();
  });
});
