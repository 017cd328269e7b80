import type Picomatch from 'picomatch';
import { globShape, globWork, meteredGlob } from './glob-work.js';
import { RegexpMachine } from './regexp-machine.js';

/**
 * One glob as picomatch decides it, charged to the params work budget (see {@link meteredGlob}). Its RegExp runs as a
 * state machine ({@link RegexpMachine}), whose work is the path's length times the program, linear: a rule with three
 * `**` judges a 150-segment path on its merits, where the backtracking RegExp's estimate (cubic in the segments) is
 * past the budget and the path could not be judged. A RegExp the machine does not run — an extglob `!(…)` over a
 * run of any length, such as `!(*.key)`, an unbounded lookahead — is picomatch's own, charged by {@link globWork}.
 */
export function globMatcher(picomatch: typeof Picomatch, glob: string, options: Picomatch.PicomatchOptions): (path: string) => boolean {
  const compiled = picomatch(glob, options);
  // the RegExp picomatch's matcher runs, exactly: a matcher's result holds it, and an empty input runs nothing
  const regex = compiled('', true).regex;
  const machine = regex.flags === '' ? RegexpMachine.of(regex.source) : undefined;
  if (machine === undefined) {
    const shape = globShape(glob);
    return (path) => meteredGlob((judged) => globWork(shape, judged), compiled, path);
  }
  // as picomatch.test decides (no `format`, `matchBase` or `ignore` given): an empty path never matches, the glob's own
  // text always does, and anything else as its RegExp does
  const matches = (path: string): boolean => path !== '' && (path === glob || machine.test(path));
  return (path) => meteredGlob((judged) => (judged.length + 1) * machine.unitsPerCharacter, matches, path);
}
