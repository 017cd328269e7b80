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
