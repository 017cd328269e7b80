import { describeHidden, hiddenCharacters, type Diagnostic, type HiddenCharacter } from '../core/index.js';
import type { Locator } from './yaml-locator.js';

// the blocks an executor reads and no agent does: an argument or script may need a control (`tr -d "\r"`), written as an
// escape that the diff shows; a character hidden in the file itself is refused there too
const EXECUTOR_BLOCKS = new Set(['shell', 'http', 'forgejo', 'gatekeeper', 'mcp', 'sandbox']);

// a tag-character payload is dozens of characters on one line: one diagnostic a line (a file) says enough
const MAX_REPORTED = 10;

/**
 * The definition's text hidden from the person who reviews it (review userX, X10): a character in the file that the
 * file or its diff does not show (tag characters, bidi controls, zero-width characters, controls), anywhere, comments
 * included; and, in every field an agent reads (all but the executor's blocks), one written as an escape
 * (`"\U000E0041"`), which the agent would read and the person looking at what it was served would not see.
 * `INVISIBLE_TEXT`, an error: the definition is left out and every other tool keeps working.
 */
export function invisibleTextDiagnostics(path: string, text: string, value: Record<string, unknown>, locator: Locator): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const lines = new Set<number>();
  for (const line of groupByLine(hiddenCharacters(text), locator)) {
    const column = line.column;
    lines.add(line.line);
    const count = line.count > 1 ? `${line.count} hidden characters, the first ` : '';
    diagnostics.push({ file: path, line: line.line, column, severity: 'error', code: 'INVISIBLE_TEXT', message: `this line holds ${count}${describeHidden(line.first.codePoint)}: a person reading the file or its diff does not see it, a model does. Remove it (an argument or script that needs it writes the escape in a double-quoted string: "${escapeOf(line.first.codePoint)}")` });
    if (diagnostics.length >= MAX_REPORTED) return diagnostics;
  }
  // only a double-quoted escape puts such a character in a value without it being in the text
  if (!text.includes('\\')) return diagnostics;
  for (const found of escapedHidden(value)) {
    const { line, column } = locator.locate(found.path, found.atKey);
    if (lines.has(line)) continue;
    lines.add(line);
    diagnostics.push({ file: path, line, column, severity: 'error', code: 'INVISIBLE_TEXT', message: `'${found.path.join('.')}' holds ${describeHidden(found.codePoint)}, written as an escape: an agent reads it, and a person looking at what the agent was served does not see it. Remove it` });
    if (diagnostics.length >= MAX_REPORTED) break;
  }
  return diagnostics;
}

/**
 * The same check for a file whose YAML is a part of it (a SKILL.md's front matter, its Markdown body after it, which
 * reaches agents' prompts whole): a raw character is found anywhere in `text`, an escape in `value`, placed by `locator`.
 */
export function invisibleTextInFile(path: string, text: string, value: Record<string, unknown>, locator: Pick<Locator, 'locate'>): Diagnostic[] {
  let starts: number[] | undefined;
  const at = (offset: number): { line: number; column: number } => {
    starts ??= lineStarts(text);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  };
  return invisibleTextDiagnostics(path, text, value, { locate: (path, key) => locator.locate(path, key), at });
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

// one entry a line: where its first hidden character is, and how many it holds
function groupByLine(found: HiddenCharacter[], locator: Locator): Array<{ line: number; column: number; first: HiddenCharacter; count: number }> {
  const lines: Array<{ line: number; column: number; first: HiddenCharacter; count: number }> = [];
  for (const character of found) {
    const { line, column } = locator.at(character.index);
    const last = lines.at(-1);
    if (last?.line === line) last.count++;
    else lines.push({ line, column, first: character, count: 1 });
  }
  return lines;
}

interface Escaped {
  path: Array<string | number>;
  atKey: boolean;
  codePoint: number;
}

// every key and string outside the executor's blocks that holds a hidden character
function escapedHidden(value: Record<string, unknown>): Escaped[] {
  const found: Escaped[] = [];
  const visit = (node: unknown, path: Array<string | number>): void => {
    if (typeof node === 'string') {
      const [first] = hiddenCharacters(node);
      if (first) found.push({ path, atKey: false, codePoint: first.codePoint });
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index]));
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, item] of Object.entries(node)) {
        if (path.length === 0 && EXECUTOR_BLOCKS.has(key)) continue;
        const [first] = hiddenCharacters(key);
        if (first) found.push({ path: [...path, key], atKey: true, codePoint: first.codePoint });
        visit(item, [...path, key]);
      }
    }
  };
  visit(value, []);
  return found;
}

// how YAML's double quotes write the character: \u202E, \U000E0041
function escapeOf(codePoint: number): string {
  return codePoint <= 0xffff ? `\\u${codePoint.toString(16).toUpperCase().padStart(4, '0')}` : `\\U${codePoint.toString(16).toUpperCase().padStart(8, '0')}`;
}
