import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * ajv's `code.regExp`: JSON Schema `pattern`s compiled with RE2 (re2js, pure JavaScript), whose matching
 * time is linear in the input. `^(a+)+$` against `aaaa…!` takes microseconds here, where the backtracking
 * `RegExp` takes longer than any deadline and holds the event loop all the while. `.`, classes and
 * `\p{…}` work on code points, as a JavaScript pattern with the `u` flag does. RE2 has no look-around
 * and no back-references: the scanner refuses such a pattern before a tool is served.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    return {
      // unanchored, as JSON Schema's `pattern` is: a match anywhere in the text
      test: (text: string) => compiled.matcher(text).find(),
      // ajv keys its compiled patterns by this text: it must differ from pattern to pattern
      toString: () => `/${pattern}/re2`,
    };
  },
  { code: 'require("re2js").RE2JS.compile' },
);
