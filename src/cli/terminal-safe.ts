// C0 and C1 controls and DEL (escape sequences, BEL, carriage return, newline), the line and paragraph separators,
// and the bidirectional embeddings, overrides and isolates, which reorder what a terminal shows
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` as a terminal may show it: every character that could steer the terminal (clear the screen, set the
 * title or the clipboard, move the cursor, start a line, reorder the text) written visibly as its escape, `\x1b`
 * or `\u202e`, and everything else as it is. For the human views of what tools and agents wrote (`hldp tail`,
 * `hldp receipts`): the terminal is the operator's, not theirs.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (character) => {
    const code = character.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
