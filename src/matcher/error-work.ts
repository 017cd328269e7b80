import { charge } from './params-work.js';

/**
 * What one error of ajv's costs the params' work budget. With allErrors every failing keyword makes an error object on
 * the event loop, ~1 µs each at load 15-20 where a passing keyword is a few to a few tens of nanoseconds
 * (`bench/params/work-per-kind.ts`): 160,000 items failing 20 `minimum`s each were 9.8 million units and 3.2 million
 * errors, 16 s of CPU and 1.4 GB of heap before the answer was sent. Charged, an error costs what a budget's worth of
 * passing keywords costs.
 */
export const ERROR_UNITS = 40;

/** The names under which the validator's generated code reaches the meter, on ajv's instance (its `self`). */
export const ERROR_HOOKS = { error: 'hldpChargeError', append: 'hldpAppendErrors' } as const;

/** What the generated code calls: an error made at a path, and one validator's errors added to another's. */
export const errorHooks = {
  [ERROR_HOOKS.error]: (instancePath: unknown): void => {
    charge(ERROR_UNITS, typeof instancePath === 'string' ? instancePath : '', () => 'its failing checks, each an error to make and report,');
  },
  [ERROR_HOOKS.append]: (into: unknown[] | null, more: unknown, instancePath: unknown): unknown => {
    if (!Array.isArray(more)) return into === null ? more : into;
    // each error is copied into its caller's list once per level it climbs: a unit each
    charge(more.length, typeof instancePath === 'string' ? instancePath : '', () => 'its failing checks, each an error to make and report,');
    if (into === null) return more;
    for (const error of more) into.push(error);
    return into;
  },
};

// ajv's two ways of adding errors, as its code generator writes them (ajv 8: compile/errors.ts addError; keyword.ts
// addErrs and vocabularies/core/ref.ts addErrorsFrom). The second copied the whole list so far at every failing call
// of a referenced schema or a keyword of ours (`vErrors.concat(...)`): 40,000 strings failing one `pattern` took 26 s.
const ADD_ERROR = /(if\(vErrors === null\)\{vErrors = \[(err\d+)\];\}else \{vErrors\.push\(\2\);\}errors\+\+;)/g;
const CONCAT = /vErrors = vErrors === null \? ([\w$]+(?:\.errors)?) : vErrors\.concat\(\1\);/g;

/**
 * ajv's `code.process`: the validator's source with each error it makes charged to the running validation's work
 * budget, and the lists of errors from referenced schemas and custom keywords appended in place rather than copied
 * whole. Only code is rewritten, never the text of a string literal or a comment (a schema's `const` may hold anything).
 */
export function meteredErrors(source: string): string {
  let out = '';
  let start = 0;
  for (const [from, to] of literals(source)) {
    out += rewrite(source.slice(start, from)) + source.slice(from, to);
    start = to;
  }
  return out + rewrite(source.slice(start));
}

function rewrite(code: string): string {
  return code
    .replace(ADD_ERROR, (whole: string, _statement: string, error: string) => `${whole}self.${ERROR_HOOKS.error}(${error}.instancePath);`)
    .replace(CONCAT, (_whole: string, errors: string) => `vErrors = self.${ERROR_HOOKS.append}(vErrors, ${errors}, instancePath);`);
}

// the spans of double-quoted string literals (ajv writes every string with JSON.stringify) and of block comments
function* literals(source: string): Generator<[number, number]> {
  let index = 0;
  while (index < source.length) {
    const char = source[index];
    if (char === '"') {
      let end = index + 1;
      while (end < source.length && source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      yield [index, end + 1];
      index = end + 1;
    } else if (char === '/' && source[index + 1] === '*') {
      const end = source.indexOf('*/', index + 2);
      const stop = end === -1 ? source.length : end + 2;
      yield [index, stop];
      index = stop;
    } else index++;
  }
}
