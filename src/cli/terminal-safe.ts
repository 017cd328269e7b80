import { HIDDEN_CHARACTER_CLASS, visibleEscape } from '../core/index.js';

// C0 and C1 controls and DEL (escape sequences, BEL, carriage return, newline), and every character that reorders
// the text around it or shows nothing (core's HIDDEN_CHARACTER_CLASS: bidi controls and marks, zero-width characters,
// the tag characters, ...)
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${HIDDEN_CHARACTER_CLASS}]`, 'gu');

/**
 * `text` as a terminal may show it: every character that could steer the terminal (clear the screen, set the
 * title or the clipboard, move the cursor, start a line, reorder the text) or hide text from the reader, written
 * visibly as its escape (`\x1b`, `\u202e`, `\u{e0041}`), and everything else as it is. For the human views of what
 * tools and agents wrote (`hldp tail`, `hldp receipts`, `hldp approvals`): the terminal is the operator's, not theirs.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visibleEscape);
}
