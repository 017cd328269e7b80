import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';
import { charge } from './params-work.js';

/** A pattern compiled for RE2 and what one character of text costs it at most. */
export interface LinearPattern {
  /** whether the pattern matches anywhere in the text, charged to the running validation's work budget first */
  find(text: string, instancePath: string): boolean;
  /** the size of RE2's program: the most NFA threads alive at one character, so the cost of one character */
  unitsPerCharacter: number;
}

/**
 * Compiles `pattern` for RE2, whose time is linear in the text, but times the program's size: an unanchored
 * `a[ab]{999}c` keeps ~1,000 threads alive per character (review X, X1), so each run is charged before it runs.
 */
export function linearPattern(pattern: string): LinearPattern {
  const { compiled, unitsPerCharacter } = compiledPattern(pattern);
  return {
    unitsPerCharacter,
    find(text, instancePath) {
      // +1: the match is tried at the end of the text too
      charge(unitsPerCharacter * (text.length + 1), instancePath, () => `matching pattern "${clip(pattern)}" (${unitsPerCharacter} RE2 instructions) against ${text.length.toLocaleString('en-US')} characters`);
      return compiled.matcher(text).find();
    },
  };
}

// the params validator counts a schema's patterns' programs before ajv compiles them: each is compiled once for both
const recent = new Map<string, { compiled: RE2JS; unitsPerCharacter: number }>();
const RECENT_PATTERNS = 1_024;

function compiledPattern(pattern: string): { compiled: RE2JS; unitsPerCharacter: number } {
  let found = recent.get(pattern);
  if (found === undefined) {
    const compiled = RE2JS.compile(pattern);
    found = { compiled, unitsPerCharacter: programSize(compiled, pattern) };
    if (recent.size >= RECENT_PATTERNS) recent.clear();
    recent.set(pattern, found);
  }
  return found;
}

/** The size of RE2's program for `pattern` (what compiling it costs, and one character of text); its length when RE2 cannot compile it. */
export function programSizeOf(pattern: string): number {
  try {
    return compiledPattern(pattern).unitsPerCharacter;
  } catch {
    return pattern.length;
  }
}

// re2js keeps its program on a field its types do not declare: read it where it is, else bound it by the pattern
// (a counted repetition {n} makes n copies of what it repeats, so the text's length alone is no bound)
function programSize(compiled: RE2JS, pattern: string): number {
  const program = (compiled as unknown as { re2Input?: { prog?: { numInst?: () => number } } }).re2Input?.prog;
  const size = typeof program?.numInst === 'function' ? program.numInst() : NaN;
  return Number.isInteger(size) && size > 0 ? size : 1_000 * (pattern.length + 1);
}

function clip(pattern: string): string {
  return pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern;
}

/**
 * ajv's `code.regExp`: JSON Schema `pattern`s compiled with RE2 (re2js, pure JavaScript), whose matching
 * time is linear in the input. `^(a+)+$` against `aaaa…!` takes microseconds here, where the backtracking
 * `RegExp` takes longer than any deadline and holds the event loop all the while. `.`, classes and
 * `\p{…}` work on code points, as a JavaScript pattern with the `u` flag does. RE2 has no look-around
 * and no back-references: the scanner refuses such a pattern before a tool is served. ajv runs it on property
 * names (`patternProperties`): each run is charged to the validation's work budget (see {@link linearPattern}).
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = linearPattern(pattern);
    return {
      // unanchored, as JSON Schema's `pattern` is: a match anywhere in the text
      test: (text: string) => compiled.find(text, ''),
      // ajv keys its compiled patterns by this text: it must differ from pattern to pattern
      toString: () => `/${pattern}/re2`,
    };
  },
  { code: 'require("re2js").RE2JS.compile' },
);
