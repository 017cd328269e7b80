import { RE2JS } from 're2js';

/** RE2's reason for refusing `pattern` (`missing closing ]: ...`), undefined when RE2 compiles it. */
export function re2Problem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, '');
  }
}

// RE2's words for look-ahead (`(?=`, `(?!`), look-behind (`(?<=`, `(?<!`, which it reads as a bad named group) and a
// back-reference (`\1`, `\k<name>`)
const UNSUPPORTED_CONSTRUCT = /^invalid or unsupported Perl syntax: `\(\?[=!]|^invalid named capture: `\(\?<[=!]|^invalid escape sequence: `\\[1-9k]`/;

/**
 * Whether RE2 refused a pattern for look-around or a back-reference, which JavaScript has and RE2 never will: only
 * then is "rewrite it without them" the fix (review userU, F3: `^[^-` is merely unclosed).
 */
export function isUnsupportedConstruct(reason: string): boolean {
  return UNSUPPORTED_CONSTRUCT.test(reason);
}

/** Whether RE2 finds `pattern` in `text` (anywhere, as JSON Schema's `pattern` does); throws for a pattern RE2 cannot compile. */
export function re2Matches(pattern: string, text: string): boolean {
  return RE2JS.compile(pattern).matcher(text).find();
}

/**
 * The number of instructions of RE2's program for `pattern` (what compiling it costs), as the params validator reads it
 * (src/matcher/linear-regexp.ts); its length when RE2 refuses it, which the scanner reports on its own.
 */
export function re2ProgramSize(pattern: string): number {
  try {
    const program = (RE2JS.compile(pattern) as unknown as { re2Input?: { prog?: { numInst?: () => number } } }).re2Input?.prog;
    const size = typeof program?.numInst === 'function' ? program.numInst() : NaN;
    return Number.isInteger(size) && size > 0 ? size : 1_000 * (pattern.length + 1);
  } catch {
    return pattern.length;
  }
}
