import { sameToolsAt, type ToolDefinition, type ToolSequence } from '../core/index.js';
import { analyzeWords } from './analyze.js';
import { isChineseWord } from './lexicon.js';
import type { ToolRecord } from './tool-record.js';

/**
 * What the calibration reads of a registry's tools, kept so that it is not read again (issue #18: at 100,000 tools
 * served from the scan cache, counting every tool's examples and aliases made each definition, ~1-2 s of CPU, at
 * every rescan and start). Per tool, by position, two numbers; and the few texts sampled as probes so far. It depends
 * on the tools alone: a successor over a rescan's patch takes the unchanged tools' over (`calibrationBasisSteps`).
 */
export interface CalibrationBasis {
  /** per position, how many examples and aliases the tool has */
  readonly texts: Uint32Array;
  /** per position, 1 where one of them has a Chinese character */
  readonly chinese: Uint8Array;
  /** how many examples and aliases the tools have in all */
  readonly total: number;
  /** how many tools have a Chinese example or alias */
  readonly chineseTools: number;
  /** the texts sampled so far, by `sampleKey`: a text is read from its tool once, while the tool stays */
  readonly sampled: Map<string, SampledText>;
  /** what the tools are made from, where it is known: a successor made from the same tells the unchanged tools by it */
  readonly origin?: ToolSequence['origin'];
}

/** One example or alias of a tool, read for the calibration's sample. */
export interface SampledText {
  text: string;
  /** whether it is asked as a request: every example, an alias of two words or more (a one-word alias is a name) */
  probe: boolean;
  /** its tool analysed without it (every example and alias equal to it left out): what the probe is measured against as its own tool */
  without?: ToolRecord;
}

/** The key of the `offset`-th text (examples first, then aliases) of the tool at `position`. */
export function sampleKey(position: number, offset: number): string {
  return `${position}:${offset}`;
}

// tools read between two steps: a registry served from its scan cache makes each definition as it is read (~0.03 ms)
const TOOLS_PER_STEP = 256;
// positions taken over from a predecessor between two steps (a copy of two numbers each)
const COPIED_PER_STEP = 8192;

/**
 * The basis of `tools`: each tool read once, or, given the basis of a predecessor whose tools are made from the same
 * scan cache (`sameToolsAt`), only the tools the rescan changed, the others' numbers and sampled texts taken over.
 * Either way the same numbers, so the calibration is the one a basis made afresh gives.
 */
export function* calibrationBasisSteps(tools: ToolSequence, previous?: CalibrationBasis): Generator<void, CalibrationBasis, void> {
  const from = previous === undefined ? undefined : previousPositions(previous, tools);
  const texts = new Uint32Array(tools.length);
  const chinese = new Uint8Array(tools.length);
  let total = 0;
  let chineseTools = 0;
  let read = 0;
  // the predecessor's sampled texts, by the position of their tool there; each goes where the same tool is now
  const samples = new Map<number, Array<[offset: number, text: SampledText]>>();
  if (from !== undefined) {
    for (const [key, text] of previous!.sampled) {
      const [position, offset] = key.split(':').map(Number) as [number, number];
      samples.set(position, [...(samples.get(position) ?? []), [offset, text]]);
    }
  }
  const sampled = new Map<string, SampledText>();
  for (let position = 0; position < tools.length; position++) {
    const before = from?.(position) ?? -1;
    if (before >= 0) {
      texts[position] = previous!.texts[before]!;
      chinese[position] = previous!.chinese[before]!;
      for (const [offset, text] of samples.get(before) ?? []) sampled.set(sampleKey(position, offset), text);
      if (position % COPIED_PER_STEP === COPIED_PER_STEP - 1) yield;
    } else {
      const tool = readTool(tools, position);
      texts[position] = tool.examples.length + tool.aliases.length;
      chinese[position] = tool.examples.some(isChineseWord) || tool.aliases.some(isChineseWord) ? 1 : 0;
      if (++read % TOOLS_PER_STEP === 0) yield;
    }
    total += texts[position]!;
    chineseTools += chinese[position]!;
  }
  return { texts, chinese, total, chineseTools, sampled, origin: tools.origin };
}

/**
 * The basis kept beside a search index (its two numbers per tool) over the tools it was kept for: the texts it sampled
 * are read again from their tools when the calibration asks for them (at most 64), so the cut is the same.
 */
export function keptCalibrationBasis({ texts, chinese }: { texts: Uint32Array; chinese: Uint8Array }, tools: ToolSequence): CalibrationBasis | undefined {
  if (texts.length !== tools.length || chinese.length !== tools.length) return undefined;
  let total = 0;
  let chineseTools = 0;
  for (let position = 0; position < texts.length; position++) {
    total += texts[position]!;
    chineseTools += chinese[position]!;
  }
  return { texts, chinese, total, chineseTools, sampled: new Map(), origin: tools.origin };
}

/**
 * The `offset`-th text of the tool at `position`, as the sample reads it: from the basis if it was read before, else
 * from the tool (made, not kept), and remembered.
 */
export function sampledText(basis: CalibrationBasis, tools: ToolSequence, position: number, offset: number): SampledText {
  const key = sampleKey(position, offset);
  const known = basis.sampled.get(key);
  if (known !== undefined) return known;
  const tool = readTool(tools, position);
  const alias = offset >= tool.examples.length;
  const text = alias ? tool.aliases[offset - tool.examples.length]! : tool.examples[offset]!;
  const sampled: SampledText = { text, probe: !alias || analyzeWords(text, 2).length >= 2 };
  basis.sampled.set(key, sampled);
  return sampled;
}

/** The tool at `position`, made without being kept where the sequence can (a whole read holds one at a time). */
export function readTool(tools: ToolSequence, position: number): ToolDefinition {
  return (tools.peek ? tools.peek(position) : tools.at(position))!;
}

// for each position of `tools`, the position of the predecessor's basis holding the very same tool, or -1
function previousPositions(previous: CalibrationBasis, tools: ToolSequence): ((position: number) => number) | undefined {
  if (previous.origin === undefined) return undefined;
  return sameToolsAt({ length: previous.texts.length, origin: previous.origin, at: () => undefined }, tools);
}
