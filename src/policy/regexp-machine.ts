import { longestMatch, parseRegexp, UnsupportedRegexp, type CodeUnitSet, type RegexpNode } from './regexp-syntax.js';

// past these, a source is left to the backtracking RegExp: a lookahead that can read this far ahead at each
// position, or a program this large, would make the machine's step too dear to be worth it
const MAX_LOOKAHEAD_LENGTH = 256;
const MAX_INSTRUCTIONS = 20_000;

type Instruction =
  | { op: 'unit'; set: CodeUnitSet; next: number }
  | { op: 'split'; next: number; other: number }
  | { op: 'anchor'; at: 'start' | 'end'; next: number }
  | { op: 'lookahead'; machine: RegexpMachine; negated: boolean; next: number }
  | { op: 'match' };

/**
 * A regular expression run as a Thompson NFA (every alternative at once, one pass over the text), so its time is
 * the text's length times its program, where JavaScript's RegExp backtracks: `^(?:(?:^|\/|.*?\/)a(?:\/.*?\/|\/|$)b…)$`
 * is quadratic or worse in the path's segments there. It decides what the RegExp decides — whether it matches
 * anywhere — since without back-references that is whether some path through the program reaches its end.
 * A lookahead (bounded: at most MAX_LOOKAHEAD_LENGTH units) is a machine of its own, run at the position it is met.
 */
export class RegexpMachine {
  /** what one code unit of text costs at most, in instructions followed: the params work budget's units */
  readonly unitsPerCharacter: number;
  /** the most code units a match can span: Infinity when a repetition is unbounded */
  readonly longest: number;
  private readonly program: Instruction[];
  private readonly start: number;

  /** The machine of a parsed expression: see {@link RegexpMachine.of}. Throws UnsupportedRegexp past its bounds. */
  constructor(node: RegexpNode) {
    const program: Instruction[] = [{ op: 'match' }];
    this.start = emit(node, 0, program);
    this.program = program;
    this.longest = longestMatch(node);
    const lookaheads = program.flatMap((instruction) => (instruction.op === 'lookahead' ? [instruction.machine] : []));
    // at each position every instruction at most once, each lookahead run over at most its longest match
    this.unitsPerCharacter = program.length + lookaheads.reduce((sum, machine) => sum + (machine.longest + 1) * machine.unitsPerCharacter, 0);
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
    return this.run(text, 0, true);
  }

  // from `from`, a match starting there (a lookahead) or at any later position too (a search)
  private run(text: string, from: number, anywhere: boolean): boolean {
    const size = this.program.length;
    let current = new Int32Array(size);
    let next = new Int32Array(size);
    // the position + 1 an instruction was last added at: each instruction joins a position's list once
    const added = new Int32Array(size);
    const stack = new Int32Array(size);
    let count = 0;
    let matched = false;
    const add = (list: Int32Array, length: number, entry: number, position: number): number => {
      let top = 0;
      stack[top++] = entry;
      while (top > 0) {
        const index = stack[--top]!;
        if (added[index] === position + 1) continue;
        added[index] = position + 1;
        const instruction = this.program[index]!;
        switch (instruction.op) {
          case 'match':
            matched = true;
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
            if (instruction.machine.run(text, position, false) !== instruction.negated) stack[top++] = instruction.next;
            break;
        }
      }
      return length;
    };
    for (let position = from; ; position += 1) {
      if (anywhere || position === from) count = add(current, count, this.start, position);
      if (matched) return true;
      if (position >= text.length || count === 0) {
        if (!anywhere || position >= text.length) return false;
        continue;
      }
      const unit = text.charCodeAt(position);
      let nextCount = 0;
      for (let index = 0; index < count; index += 1) {
        const instruction = this.program[current[index]!] as { set: CodeUnitSet; next: number };
        if (contains(instruction.set, unit)) nextCount = add(next, nextCount, instruction.next, position + 1);
      }
      [current, next, count] = [next, current, nextCount];
    }
  }
}

function contains(set: CodeUnitSet, unit: number): boolean {
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
function emit(node: RegexpNode, next: number, program: Instruction[]): number {
  if (program.length > MAX_INSTRUCTIONS) throw new UnsupportedRegexp('a program too large');
  const push = (instruction: Instruction): number => program.push(instruction) - 1;
  switch (node.kind) {
    case 'units':
      return push({ op: 'unit', set: node.set, next });
    case 'anchor':
      return push({ op: 'anchor', at: node.at, next });
    case 'sequence':
      return node.items.reduceRight((after, item) => emit(item, after, program), next);
    case 'alternation':
      return node.options
        .map((option) => emit(option, next, program))
        .reduceRight((other, entry) => push({ op: 'split', next: entry, other }));
    case 'lookahead': {
      if (longestMatch(node.body) > MAX_LOOKAHEAD_LENGTH) throw new UnsupportedRegexp('an unbounded lookahead');
      return push({ op: 'lookahead', machine: new RegexpMachine(node.body), negated: node.negated, next });
    }
    case 'repeat':
      return emitRepeat(node, next, program);
  }
}

function emitRepeat(node: Extract<RegexpNode, { kind: 'repeat' }>, next: number, program: Instruction[]): number {
  let entry = next;
  if (node.max === Infinity) {
    // a loop: the split goes into the body, whose end comes back to it, or on
    const loop = program.push({ op: 'split', next: -1, other: next }) - 1;
    (program[loop] as { next: number }).next = emit(node.body, loop, program);
    entry = loop;
  } else {
    for (let optional = node.max - node.min; optional > 0; optional -= 1) {
      const body = emit(node.body, entry, program);
      entry = program.push({ op: 'split', next: body, other: next }) - 1;
    }
  }
  for (let required = node.min; required > 0; required -= 1) entry = emit(node.body, entry, program);
  return entry;
}
