import { longestMatch, parseRegexp, UnsupportedRegexp, type CodeUnitSet, type RegexpNode } from './regexp-syntax.js';

// past these, a source is left to the backtracking RegExp: a lookahead that can read this far ahead at each
// position, or a program this large, would make the machine's step too dear to be worth it
const MAX_LOOKAHEAD_LENGTH = 256;
const MAX_INSTRUCTIONS = 20_000;

// the searches begun (RegexpMachine.test): a lookahead's answers hold for the text of one
let searches = 0;

type Instruction =
  | { op: 'unit'; set: UnitTest; next: number }
  | { op: 'split'; next: number; other: number }
  | { op: 'anchor'; at: 'start' | 'end'; next: number }
  | { op: 'lookahead'; machine: RegexpMachine; negated: boolean; next: number }
  | { op: 'match' };

// a code unit set as one step tests it: a table for ASCII, the ranges past it
interface UnitTest {
  ascii: Uint8Array;
  set: CodeUnitSet;
}

/**
 * A regular expression run as a Thompson NFA (every alternative at once, one pass over the text), so its time is
 * the text's length times its program, where JavaScript's RegExp backtracks: `^(?:(?:^|\/|.*?\/)a(?:\/.*?\/|\/|$)b…)$`
 * is quadratic or worse in the path's segments there. It decides what the RegExp decides — whether it matches
 * anywhere — since without back-references that is whether some path through the program reaches its end.
 * A lookahead (bounded: at most MAX_LOOKAHEAD_LENGTH units) is a machine of its own, run once at a position of a
 * text however many threads meet it there (the same lookahead written twice is one machine).
 */
export class RegexpMachine {
  /** what one code unit of text costs at most, in instructions followed: the params work budget's units */
  readonly unitsPerCharacter: number;
  /** the most code units a match can span: Infinity when a repetition is unbounded */
  readonly longest: number;
  private readonly program: Instruction[];
  private readonly start: number;
  // the lists of one run, kept between runs (a machine never runs inside its own run: a lookahead is another machine)
  private current: Int32Array;
  private next: Int32Array;
  private added: Int32Array;
  private readonly stack: Int32Array;
  private matched = false;
  // a lookahead's answers at the positions of the text of one search (`answered`): 0 unknown, 1 holds, 2 does not
  private answers = new Uint8Array(0);
  private answered = 0;

  /** The machine of a parsed expression: see {@link RegexpMachine.of}. Throws UnsupportedRegexp past its bounds. */
  constructor(node: RegexpNode, lookaheads = new Map<string, RegexpMachine>()) {
    const program: Instruction[] = [{ op: 'match' }];
    this.start = emit(node, 0, program, lookaheads);
    this.program = program;
    this.longest = longestMatch(node);
    this.current = new Int32Array(program.length);
    this.next = new Int32Array(program.length);
    this.added = new Int32Array(program.length);
    // each instruction is followed once a position and pushes at most two: the entry and twice the program
    this.stack = new Int32Array(2 * program.length + 1);
    const own = new Set(program.flatMap((instruction) => (instruction.op === 'lookahead' ? [instruction.machine] : [])));
    // at each position every instruction at most once, each distinct lookahead run once over at most its longest match
    this.unitsPerCharacter = program.length + [...own].reduce((sum, machine) => sum + (machine.longest + 1) * machine.unitsPerCharacter, 0);
  }

  /** The machine of `source` (a RegExp's source, no flags), or undefined when it uses what the machine does not run. */
  static of(source: string): RegexpMachine | undefined {
    try {
      return new RegexpMachine(parseRegexp(source));
    } catch (error) {
      if (error instanceof UnsupportedRegexp) return undefined;
      throw error;
    }
  }

  /** Whether the expression matches anywhere in `text`, as RegExp.prototype.test says. */
  test(text: string): boolean {
    searches += 1;
    return this.run(text, 0, true);
  }

  // whether a match starts at `position` (the lookahead's answer there), asked of this text once
  private holdsAt(text: string, position: number): boolean {
    if (this.answered !== searches) {
      if (this.answers.length < text.length + 1) this.answers = new Uint8Array(text.length + 1);
      else this.answers.fill(0, 0, text.length + 1);
      this.answered = searches;
    }
    if (this.answers[position] === 0) this.answers[position] = this.run(text, position, false) ? 1 : 2;
    return this.answers[position] === 1;
  }

  // from `from`, a match starting there (a lookahead) or at any later position too (a search)
  private run(text: string, from: number, anywhere: boolean): boolean {
    this.added.fill(0);
    this.matched = false;
    let count = 0;
    for (let position = from; ; position += 1) {
      if (anywhere || position === from) count = this.add(this.current, count, this.start, text, position);
      if (this.matched) return true;
      if (position >= text.length) return false;
      if (count === 0) {
        if (!anywhere) return false;
        continue;
      }
      const unit = text.charCodeAt(position);
      let nextCount = 0;
      for (let index = 0; index < count; index += 1) {
        const instruction = this.program[this.current[index]!] as { set: UnitTest; next: number };
        if (contains(instruction.set, unit)) nextCount = this.add(this.next, nextCount, instruction.next, text, position + 1);
      }
      [this.current, this.next, count] = [this.next, this.current, nextCount];
    }
  }

  // adds `entry` and every instruction it leads to without reading a unit to `list` (its first `length` taken)
  private add(list: Int32Array, length: number, entry: number, text: string, position: number): number {
    const { stack, added, program } = this;
    let top = 0;
    stack[top++] = entry;
    while (top > 0) {
      const index = stack[--top]!;
      // the position + 1 an instruction was last added at: each instruction joins a position's list once
      if (added[index] === position + 1) continue;
      added[index] = position + 1;
      const instruction = program[index]!;
      switch (instruction.op) {
        case 'match':
          this.matched = true;
          break;
        case 'unit':
          list[length++] = index;
          break;
        case 'split':
          stack[top++] = instruction.other;
          stack[top++] = instruction.next;
          break;
        case 'anchor':
          if (instruction.at === 'start' ? position === 0 : position === text.length) stack[top++] = instruction.next;
          break;
        case 'lookahead':
          if (instruction.machine.holdsAt(text, position) !== instruction.negated) stack[top++] = instruction.next;
          break;
      }
    }
    return length;
  }
}

function unitTest(set: CodeUnitSet): UnitTest {
  const ascii = new Uint8Array(128);
  for (let unit = 0; unit < 128; unit += 1) ascii[unit] = set.ranges.some(([low, high]) => unit >= low && unit <= high) !== set.negated ? 1 : 0;
  return { ascii, set };
}

function contains({ ascii, set }: UnitTest, unit: number): boolean {
  if (unit < 128) return ascii[unit] === 1;
  let inside = false;
  for (const [low, high] of set.ranges) {
    if (unit >= low && unit <= high) {
      inside = true;
      break;
    }
  }
  return inside !== set.negated;
}

// Appends the instructions of `node`, continuing at `next`, to `program`; returns where they start.
function emit(node: RegexpNode, next: number, program: Instruction[], lookaheads: Map<string, RegexpMachine>): number {
  if (program.length > MAX_INSTRUCTIONS) throw new UnsupportedRegexp('a program too large');
  const push = (instruction: Instruction): number => program.push(instruction) - 1;
  switch (node.kind) {
    case 'units':
      return push({ op: 'unit', set: unitTest(node.set), next });
    case 'anchor':
      return push({ op: 'anchor', at: node.at, next });
    case 'sequence':
      return node.items.reduceRight((after, item) => emit(item, after, program, lookaheads), next);
    case 'alternation':
      return node.options
        .map((option) => emit(option, next, program, lookaheads))
        .reduceRight((other, entry) => push({ op: 'split', next: entry, other }));
    case 'lookahead': {
      if (longestMatch(node.body) > MAX_LOOKAHEAD_LENGTH) throw new UnsupportedRegexp('an unbounded lookahead');
      // one machine for each distinct lookahead: picomatch writes the same ones at every `**` and `*`
      const key = JSON.stringify(node.body);
      const machine = lookaheads.get(key) ?? new RegexpMachine(node.body, lookaheads);
      lookaheads.set(key, machine);
      return push({ op: 'lookahead', machine, negated: node.negated, next });
    }
    case 'repeat':
      return emitRepeat(node, next, program, lookaheads);
  }
}

function emitRepeat(node: Extract<RegexpNode, { kind: 'repeat' }>, next: number, program: Instruction[], lookaheads: Map<string, RegexpMachine>): number {
  let entry = next;
  if (node.max === Infinity) {
    // a loop: the split goes into the body, whose end comes back to it, or on
    const loop = program.push({ op: 'split', next: -1, other: next }) - 1;
    (program[loop] as { next: number }).next = emit(node.body, loop, program, lookaheads);
    entry = loop;
  } else {
    for (let optional = node.max - node.min; optional > 0; optional -= 1) {
      const body = emit(node.body, entry, program, lookaheads);
      entry = program.push({ op: 'split', next: body, other: next }) - 1;
    }
  }
  for (let required = node.min; required > 0; required -= 1) entry = emit(node.body, entry, program, lookaheads);
  return entry;
}
