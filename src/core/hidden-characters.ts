/**
 * The characters that reorder the text around them or show nothing at all, as a regular expression's class body
 * (for the `u` flag): the bidirectional embeddings, overrides, isolates and marks (LRM, RLM, ALM), the line and
 * paragraph separators, the zero-width space, word joiner and the invisible operators, the deprecated format
 * characters (U+206A-206F), the byte order mark, the interlinear annotation characters, the Hangul fillers (blank
 * letters, used to make names that look empty or like another) and the tag characters (which spell ASCII invisibly:
 * text written for a model to read and a person not to). The zero-width joiner and non-joiner are not among them:
 * scripts and emoji need them. What a person reads before deciding (a terminal, the console) shows each as its escape.
 */
export const HIDDEN_CHARACTER_CLASS = '\\u061c\\u115f\\u1160\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}';

/** How such a character (or a control) is written visibly: `\x1b`, `\u202e`, `\u{e0041}`. */
export function visibleEscape(character: string): string {
  const code = character.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

// the controls but tab and line feed, and what reorders or hides text
const HIDDEN_OR_CONTROL = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${HIDDEN_CHARACTER_CLASS}]`, 'gu');

/**
 * Plain text in which every character that would reorder or hide part of it, and every control but tab and line
 * feed, is written as its escape (`\u202e`): for plain-text views a person decides on, such as an MCP client's
 * elicitation prompt (the console's `revealed` is the same for HTML, the CLI's `terminalSafe` for terminals).
 */
export function revealHidden(text: string): string {
  return text.replace(HIDDEN_OR_CONTROL, visibleEscape);
}
