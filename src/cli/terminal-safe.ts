// C0 and C1 controls and DEL (escape sequences, BEL, carriage return, newline), the line and paragraph separators,
// the bidirectional embeddings, overrides and isolates and the marks (LRM, RLM, ALM), which reorder what a terminal
// shows, and the characters that show nothing at all and so hide text from the reader: the zero-width space, the word
// joiner, the byte order mark and the tag characters (U+E0000-E007F, which spell ASCII invisibly: text written for a
// model to read and a person not to). The zero-width joiner and non-joiner stay: scripts and emoji need them.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;

/**
 * `text` as a terminal may show it: every character that could steer the terminal (clear the screen, set the
 * title or the clipboard, move the cursor, start a line, reorder the text) or hide text from the reader, written
 * visibly as its escape (`\x1b`, `\u202e`, `\u{e0041}`), and everything else as it is. For the human views of what
 * tools and agents wrote (`hldp tail`, `hldp receipts`, `hldp approvals`): the terminal is the operator's, not theirs.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (character) => {
    const code = character.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
