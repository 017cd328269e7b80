/** A set of UTF-16 code units: inclusive ranges, or every unit outside them when `negated`. */
export interface CodeUnitSet {
  ranges: ReadonlyArray<readonly [number, number]>;
  negated: boolean;
}

/** One node of a regular expression as the state machine runs it (captures, laziness and greed do not change whether it matches). */
export type RegexpNode =
  | { kind: 'units'; set: CodeUnitSet }
  | { kind: 'sequence'; items: RegexpNode[] }
  | { kind: 'alternation'; options: RegexpNode[] }
  | { kind: 'repeat'; body: RegexpNode; min: number; max: number }
  | { kind: 'anchor'; at: 'start' | 'end' }
  | { kind: 'lookahead'; body: RegexpNode; negated: boolean };

// a counted repetition is unrolled into copies: past this, the source is left to the backtracking RegExp
const MAX_REPEAT_COUNT = 100;

// JavaScript's `.` without the `s` flag: every code unit but the line terminators
const DOT: CodeUnitSet = { ranges: [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]], negated: true };
const DIGIT: Array<[number, number]> = [[0x30, 0x39]];
const WORD: Array<[number, number]> = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

/** Thrown where the source uses what the state machine does not run: the RegExp is then run as JavaScript runs it. */
export class UnsupportedRegexp extends Error {}

/**
 * Parses the source of a JavaScript RegExp without flags, as picomatch writes them: groups, alternations, classes,
 * `.`, `^`, `$`, quantifiers (greedy or lazy) and lookaheads. Anything else — lookbehinds, back-references, `\b`,
 * `\s`, `\x`/`\u` escapes, a bare `{`, `}` or `]` — throws UnsupportedRegexp rather than risk reading it otherwise.
 */
export function parseRegexp(source: string): RegexpNode {
  const parser = new Parser(source);
  const node = parser.alternation();
  if (!parser.atEnd()) throw new UnsupportedRegexp(`unexpected "${source[parser.position]}" at ${parser.position}`);
  return node;
}

class Parser {
  position = 0;

  constructor(private readonly source: string) {}

  atEnd(): boolean {
    return this.position >= this.source.length;
  }

  alternation(): RegexpNode {
    const options = [this.sequence()];
    while (this.source[this.position] === '|') {
      this.position += 1;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alternation', options };
  }

  private sequence(): RegexpNode {
    const items: RegexpNode[] = [];
    while (!this.atEnd() && this.source[this.position] !== '|' && this.source[this.position] !== ')') items.push(this.quantified());
    return items.length === 1 ? items[0]! : { kind: 'sequence', items };
  }

  private quantified(): RegexpNode {
    const atom = this.atom();
    const bounds = this.quantifier();
    if (bounds === undefined) return atom;
    if (atom.kind === 'anchor' || atom.kind === 'lookahead') throw new UnsupportedRegexp('a quantified assertion');
    if (this.source[this.position] === '?') this.position += 1;
    return { kind: 'repeat', body: atom, min: bounds.min, max: bounds.max };
  }

  private quantifier(): { min: number; max: number } | undefined {
    const next = this.source[this.position];
    if (next === '*' || next === '+' || next === '?') {
      this.position += 1;
      return { min: next === '+' ? 1 : 0, max: next === '?' ? 1 : Infinity };
    }
    if (next !== '{') return undefined;
    const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.position));
    if (counted === null) throw new UnsupportedRegexp('a "{" that is not a quantifier');
    const min = Number(counted[1]);
    const max = counted[2] === undefined ? min : counted[3] === '' ? Infinity : Number(counted[3]);
    if (min > MAX_REPEAT_COUNT || (max !== Infinity && max > MAX_REPEAT_COUNT) || max < min) throw new UnsupportedRegexp('a large or reversed count');
    this.position += counted[0].length;
    return { min, max };
  }

  private atom(): RegexpNode {
    const next = this.source[this.position]!;
    this.position += 1;
    switch (next) {
      case '^':
        return { kind: 'anchor', at: 'start' };
      case '$':
        return { kind: 'anchor', at: 'end' };
      case '.':
        return { kind: 'units', set: DOT };
      case '[':
        return { kind: 'units', set: this.characterClass() };
      case '\\':
        return { kind: 'units', set: this.escape() };
      case '(':
        return this.group();
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
        throw new UnsupportedRegexp(`a bare "${next}"`);
      default:
        return { kind: 'units', set: single(next.charCodeAt(0)) };
    }
  }

  private group(): RegexpNode {
    let lookahead: boolean | undefined;
    if (this.source.startsWith('?:', this.position)) this.position += 2;
    else if (this.source.startsWith('?=', this.position) || this.source.startsWith('?!', this.position)) {
      lookahead = this.source[this.position + 1] === '!';
      this.position += 2;
    } else if (this.source[this.position] === '?') throw new UnsupportedRegexp('a lookbehind or a named group');
    const body = this.alternation();
    if (this.source[this.position] !== ')') throw new UnsupportedRegexp('an unclosed group');
    this.position += 1;
    return lookahead === undefined ? body : { kind: 'lookahead', body, negated: lookahead };
  }

  private characterClass(): CodeUnitSet {
    const negated = this.source[this.position] === '^';
    if (negated) this.position += 1;
    const ranges: Array<readonly [number, number]> = [];
    while (this.source[this.position] !== ']') {
      if (this.atEnd()) throw new UnsupportedRegexp('an unclosed class');
      const low = this.classAtom();
      const isRange = this.source[this.position] === '-' && this.position + 1 < this.source.length && this.source[this.position + 1] !== ']';
      if (!isRange) {
        ranges.push(...(typeof low === 'number' ? [[low, low] as const] : low));
        continue;
      }
      this.position += 1;
      const high = this.classAtom();
      if (typeof low !== 'number' || typeof high !== 'number' || high < low) throw new UnsupportedRegexp('a range of classes or a reversed range');
      ranges.push([low, high]);
    }
    this.position += 1;
    return { ranges, negated };
  }

  // one code unit, or the ranges of a class escape (`\d`, `\w`)
  private classAtom(): number | ReadonlyArray<readonly [number, number]> {
    const next = this.source.charCodeAt(this.position);
    this.position += 1;
    if (next !== 0x5c) return next;
    const set = this.escape();
    return !set.negated && set.ranges.length === 1 && set.ranges[0]![0] === set.ranges[0]![1] ? set.ranges[0]![0] : set.negated ? unsupportedInClass() : set.ranges;
  }

  private escape(): CodeUnitSet {
    const next = this.source[this.position];
    if (next === undefined) throw new UnsupportedRegexp('a trailing "\\"');
    this.position += 1;
    if (next in CONTROL_ESCAPES) return single(CONTROL_ESCAPES[next]!);
    if (next === 'd' || next === 'D') return { ranges: DIGIT, negated: next === 'D' };
    if (next === 'w' || next === 'W') return { ranges: WORD, negated: next === 'W' };
    // an identity escape of punctuation (`\/`, `\.`, `\-`) is that character, in a class or out of it
    if (/[A-Za-z0-9_]/.test(next)) throw new UnsupportedRegexp(`the escape "\\${next}"`);
    return single(next.charCodeAt(0));
  }
}

function unsupportedInClass(): never {
  throw new UnsupportedRegexp('a negated class escape inside a class');
}

function single(unit: number): CodeUnitSet {
  return { ranges: [[unit, unit]], negated: false };
}

/** The most code units `node` can match: Infinity when a repetition is unbounded. */
export function longestMatch(node: RegexpNode): number {
  switch (node.kind) {
    case 'units':
      return 1;
    case 'sequence':
      return node.items.reduce((sum, item) => sum + longestMatch(item), 0);
    case 'alternation':
      return Math.max(...node.options.map(longestMatch));
    case 'repeat': {
      const body = longestMatch(node.body);
      return body === 0 ? 0 : node.max * body;
    }
    default:
      return 0;
  }
}
