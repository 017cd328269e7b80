import { mapHidden, visibleEscape } from '../core/index.js';

/**
 * `text` as a terminal may show it: every character that could steer the terminal (clear the screen, set the
 * title or the clipboard, move the cursor, start a line, reorder the text) or hide text from the reader, written
 * visibly as its escape (`\x1b`, `\u202e`, `\u{e0041}`), and everything else as it is. For the human views of what
 * tools and agents wrote (`hldp tail`, `hldp receipts`, `hldp approvals`): the terminal is the operator's, not theirs.
 * What hides text is the set `hldp validate` refuses in a definition (core's `hiddenCharacters`), and every control.
 */
export function terminalSafe(text: string): string {
  return mapHidden(text, visibleEscape, undefined, 'all');
}
