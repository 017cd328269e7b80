/** One line of a budgeted block: the name and markers are never shortened, the description is. */
export interface BudgetLine {
  name: string;
  description: string;
  /** mode markers such as `[active]`: kept whole on every line that is kept */
  markers: readonly string[];
  /** the characters of `- name [marker]…` and of the description, where known without reading the description */
  readonly measured?: { readonly headChars: number; readonly length: number };
}

/** A titled list of lines; it is left out when it has no lines left. */
export interface BudgetSection {
  header: string;
  lines: readonly BudgetLine[];
  /** lower ranks lose whole lines first, once every description is gone */
  dropRank: number;
}

/** The block as it fits, and what fitting it cost. */
export interface FittedBlock {
  text: string;
  /** each section's text as fitted, '' for a section with no lines left */
  sections: string[];
  /** characters (Unicode code points) of `text` */
  chars: number;
  /** descriptions shortened or removed */
  shortened: number;
  /** characters taken from descriptions */
  cut_chars: number;
  /** lines left out whole, names and all */
  dropped: BudgetLine[];
}

const SEPARATOR = ' — ';
const ELLIPSIS = '…';

/** Characters as a person counts them: Unicode code points (as `[...text].length`, a lone surrogate one each). */
export function countChars(text: string): number {
  let count = text.length;
  for (let at = 0; at < text.length - 1; at += 1) {
    const unit = text.charCodeAt(at);
    if (unit < 0xd800 || unit > 0xdbff) continue;
    const next = text.charCodeAt(at + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      // a surrogate pair is one character
      count -= 1;
      at += 1;
    }
  }
  return count;
}

// a line's lengths, worked out once per line object: the block's tool lines are shared by every session's block
const measured = new WeakMap<BudgetLine, { headChars: number; length: number }>();

function measure(line: BudgetLine): { headChars: number; length: number } {
  let found = line.measured ?? measured.get(line);
  if (!found) measured.set(line, (found = { headChars: countChars(headOf(line)), length: countChars(line.description) }));
  return found;
}

// `- name [marker]…`: made for the lines shown only (at 100,000 tools, ~1,100 of a block of 16,000 characters)
function headOf(line: BudgetLine): string {
  return `- ${line.name}${line.markers.map((marker) => ` ${marker}`).join('')}`;
}

interface Measured {
  line: BudgetLine;
  section: number;
  /** characters of `- name [marker]…` */
  headChars: number;
  /** characters (code points) of the description */
  length: number;
  keep: number;
  dropped: boolean;
}

/**
 * Fits sections into `maxChars` (seed 001): while too long, descriptions lose one character each in
 * turn, round after round (a shortened one ends in `…`; an emptied one takes its separator with it);
 * only when no description is left do whole lines go: lines without markers before lines with them,
 * then lowest `dropRank` first, last line first. Deterministic: the same input gives the same block.
 */
export function fitToBudget(sections: readonly BudgetSection[], maxChars: number): FittedBlock {
  const lines: Measured[] = [];
  sections.forEach((section, index) => {
    for (const line of section.lines) {
      const { headChars, length } = measure(line);
      lines.push({ line, section: index, headChars, length, keep: length, dropped: false });
    }
  });
  const lineChars = (line: Measured, keep: number): number => line.headChars + (keep > 0 ? SEPARATOR.length + keep : 0);
  const headers = sections.map((section) => countChars(section.header));
  const counts = sections.map((section) => section.lines.length);
  const fixed = (): number => {
    const rendered = counts.filter((count) => count > 0).length;
    return counts.reduce((sum, count, index) => sum + (count > 0 ? headers[index]! : 0), 0) + Math.max(0, rendered - 1);
  };
  const totalAfter = (rounds: number): number => {
    let sum = fixed();
    for (const line of lines) sum += 1 + lineChars(line, Math.max(0, line.length - rounds));
    return sum;
  };

  let total = totalAfter(0);
  if (total > maxChars) {
    const longest = lines.reduce((max, line) => Math.max(max, line.length), 0);
    // the fewest whole rounds that fit, then the round before it and as many lines of the next as needed
    let low = 0;
    let high = longest;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (totalAfter(middle) <= maxChars) high = middle;
      else low = middle + 1;
    }
    const rounds = low;
    const before = Math.max(0, rounds - 1);
    for (const line of lines) line.keep = Math.max(0, line.length - before);
    total = totalAfter(before);
    for (const line of lines) {
      if (total <= maxChars) break;
      if (line.keep === 0) continue;
      total -= lineChars(line, line.keep) - lineChars(line, line.keep - 1);
      line.keep -= 1;
    }
  }
  const dropped: BudgetLine[] = [];
  if (total > maxChars) {
    for (const line of dropOrder(lines, sections)) {
      if (total <= maxChars) break;
      counts[line.section]! -= 1;
      total -= 1 + lineChars(line, 0);
      // the section's header (and one separating newline, if another section remains) goes with its last line
      if (counts[line.section] === 0) total -= headers[line.section]! + (counts.some((count) => count > 0) ? 1 : 0);
      line.dropped = true;
      dropped.push(line.line);
    }
  }
  let shortened = 0;
  let cutChars = 0;
  const kept: string[][] = sections.map(() => []);
  for (const line of lines) if (!line.dropped) kept[line.section]!.push(render(line));
  const sectionTexts = sections.map((section, index) => (kept[index]!.length === 0 ? '' : [section.header, ...kept[index]!].join('\n')));
  const text = sectionTexts.filter((part) => part !== '').join('\n');
  for (const line of lines) {
    if (line.dropped || line.keep === line.length) continue;
    shortened += 1;
    cutChars += line.length - line.keep;
  }
  return { text, sections: sectionTexts, chars: countChars(text), shortened, cut_chars: cutChars, dropped };
}

/**
 * The order whole lines go in: lines with markers last of all (a mode must not vanish while a plain line still
 * stands), then lowest `dropRank` first, last line first. Made lazily, a group at a time, since usually only the
 * first group is reached (a sort of every line took most of a large block's fitting).
 */
function* dropOrder(lines: readonly Measured[], sections: readonly BudgetSection[]): Generator<Measured> {
  const ranks = [...new Set(sections.map((section) => section.dropRank))].sort((a, b) => a - b);
  for (const marked of [false, true]) {
    for (const rank of ranks) {
      for (let at = lines.length - 1; at >= 0; at -= 1) {
        const line = lines[at]!;
        if (line.line.markers.length > 0 === marked && sections[line.section]!.dropRank === rank) yield line;
      }
    }
  }
}

function render(line: Measured): string {
  const head = headOf(line.line);
  if (line.keep === 0) return head;
  const description = line.keep === line.length ? line.line.description : `${Array.from(line.line.description).slice(0, line.keep - 1).join('')}${ELLIPSIS}`;
  return `${head}${SEPARATOR}${description}`;
}
