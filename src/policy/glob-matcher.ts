import type Picomatch from 'picomatch';
import { globShape, globWork, meteredGlob } from './glob-work.js';
import { RegexpMachine } from './regexp-machine.js';

/** A glob's decision by the state machine, and its work on a path in the params budget's units. */
export interface GlobMachine {
  matches(path: string): boolean;
  work(path: string): number;
}

/**
 * One glob as picomatch decides it, charged to the params work budget (see {@link meteredGlob}), by the cheaper of two
 * engines for each path as charged: picomatch's own RegExp, which backtracks, at its estimate ({@link globWork}: a short
 * path, or one `**`, which V8 runs at once), or the same RegExp run as a state machine ({@link globMachine}), linear.
 * So a rule with three `**` judges a 150-segment path on its merits, where the estimate, cubic in the segments, was
 * past the budget and the path could not be judged. A RegExp the machine does not run — an extglob over a run of
 * any length, such as `!(*.key)`, whose lookahead reads to the end — has only picomatch's, and its estimate.
 */
export function globMatcher(picomatch: typeof Picomatch, glob: string, options: Picomatch.PicomatchOptions): (path: string) => boolean {
  const compiled = picomatch(glob, options);
  const shape = globShape(glob);
  const machine = globMachine(compiled, glob);
  if (machine === undefined) return (path) => meteredGlob((judged) => globWork(shape, judged), compiled, path);
  return (path) => {
    const [backtracking, linear] = [globWork(shape, path), machine.work(path)];
    return backtracking <= linear ? meteredGlob(() => backtracking, compiled, path) : meteredGlob(() => linear, machine.matches, path);
  };
}

/**
 * The state machine of `compiled` (picomatch's matcher of `glob`): its decision, the matcher's, in the path's length
 * times the machine's program; undefined when its RegExp uses what the machine does not run (see {@link RegexpMachine}).
 */
export function globMachine(compiled: Picomatch.Matcher, glob: string): GlobMachine | undefined {
  // the RegExp picomatch's matcher runs, exactly: a matcher's result holds it, and an empty input runs nothing
  const regex = compiled('', true).regex;
  const machine = regex.flags === '' ? RegexpMachine.of(regex.source) : undefined;
  if (machine === undefined) return undefined;
  return {
    // as picomatch.test decides (no `format`, `matchBase` or `ignore` given): an empty path never matches, the glob's
    // own text always does, and anything else as its RegExp does
    matches: (path) => path !== '' && (path === glob || machine.test(path)),
    work: (path) => (path.length + 1) * machine.unitsPerCharacter,
  };
}
