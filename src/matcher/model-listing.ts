import { toolNameAt, type ToolSequence } from '../core/index.js';

/** The registry as a model reads it: one `name: purpose` line per tool, within a budget of characters. */
export interface ModelListing {
  text: string;
  /** the names listed, in order */
  names: string[];
  /** tools left out because even their names did not fit */
  omitted: number;
  /** whether purposes were shortened to fit */
  shortened: boolean;
}

/**
 * Lists tools for a model within `budget` characters (seed 001): purposes shrink first, a character
 * at a time from the longest (so every tool keeps as much as the others), names last; when even the
 * names do not fit, the tools at the end of `tools` are left out and counted. Callers put the tools
 * most likely to fit the request first.
 */
export function listForModel(tools: ToolSequence, budget: number): ModelListing {
  // each line is "- name: purpose\n"; a name alone is "- name\n": the names decide how many fit, so only the tools
  // listed are made (at 100,000 tools, a few thousand at most)
  let count = 0;
  let fixed = 0;
  for (; count < tools.length; count++) {
    const line = toolNameAt(tools, count)!.length + 3;
    if (fixed + line > budget) break;
    fixed += line;
  }
  const kept = Array.from({ length: count }, (_, position) => {
    const tool = tools.at(position)!;
    return { name: tool.name, purpose: listedPurpose(tool.intent) };
  });
  const room = budget - fixed;
  const cap = purposeCap(kept.map((entry) => entry.purpose.length + 2), room);
  const shortened = kept.some((entry) => entry.purpose.length + 2 > cap);
  const lines = kept.map(({ name, purpose }) => {
    const length = Math.max(0, Math.min(purpose.length, cap - 2));
    if (length === 0) return `- ${name}`;
    return `- ${name}: ${length < purpose.length ? `${purpose.slice(0, Math.max(0, length - 1))}…` : purpose}`;
  });
  return { text: lines.join('\n'), names: kept.map((entry) => entry.name), omitted: tools.length - count, shortened };
}

/**
 * The tools of `tools`, in order, that `mayOffer` accepts, as many as a listing within `budget` could name: the walk
 * stops at the first accepted tool whose name no longer fits (`more`), so a large registry is not made whole for one
 * principal's listing, and a refused tool is never read past its name.
 */
export function listOfferable(tools: ToolSequence, mayOffer: (name: string) => boolean, budget: number): { tools: ToolSequence; more: boolean } {
  const kept: number[] = [];
  let fixed = 0;
  let more = false;
  for (let position = 0; position < tools.length; position++) {
    const name = toolNameAt(tools, position)!;
    if (!mayOffer(name)) continue;
    if (fixed + name.length + 3 > budget) {
      more = true;
      break;
    }
    fixed += name.length + 3;
    kept.push(position);
  }
  return {
    tools: { length: kept.length, at: (position) => tools.at(kept[position]!), nameAt: (position) => toolNameAt(tools, kept[position]!) },
    more,
  };
}

// The largest cap on each purpose's length (with its ": ") at which they all fit into `room`:
// cutting the longest first, one character at a time round-robin, ends at exactly this cap.
function purposeCap(lengths: number[], room: number): number {
  const total = lengths.reduce((sum, length) => sum + length, 0);
  if (total <= room) return Math.max(0, ...lengths);
  let low = 0;
  let high = Math.max(0, ...lengths);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const used = lengths.reduce((sum, length) => sum + Math.min(length, middle), 0);
    if (used <= room) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The most characters of one tool's intent a model is sent, whatever the budget: a definition is data, and a bounded one (review Z8, Z8-1). */
export const MAX_LISTED_PURPOSE = 400;

// one line, bounded, and unable to write the listing's end marker (`REGISTRY>>>`): the model reads it as data
function listedPurpose(intent: string): string {
  const line = oneLine(intent).replace(/([<>])\1{2,}/g, '$1$1');
  return line.length > MAX_LISTED_PURPOSE ? `${line.slice(0, MAX_LISTED_PURPOSE - 1)}…` : line;
}

// every character some serving stack takes for a line break (Python's str.splitlines also breaks at NEL U+0085 and at
// U+001C-U+001E, which \s does not match) or that controls a terminal: a definition's intent could otherwise put a
// line such as "Request: …" of its own into the model's prompt (review L)
function oneLine(text: string): string {
  return text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
}
