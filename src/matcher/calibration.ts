import { runToEnd, type ToolDefinition, type ToolSequence } from '../core/index.js';
import { analyzeWords } from './analyze.js';
import { decisionFeatures, fitProbability } from './decision.js';
import { measureRecord, recordRarity } from './features.js';
import { isChineseWord } from './lexicon.js';
import { rankTools, type RankedTool } from './rank.js';
import type { DecisionModel, RankingParameters } from './ranking-parameters.js';
import { readRequest } from './request-words.js';
import type { SearchIndex } from './search-index.js';
import { describeTool } from './tool-record.js';

/** Where one registry draws the line between `confidence: "high"` and `"low"`, and what it was drawn from. */
export interface Calibration {
  /** the probability of "fits" at or above which an answer is confident */
  threshold: number;
  /** how many of the registry's own examples and aliases it was measured on (0: the model's default cut) */
  probes: number;
  /** the cut those probes alone favour, before it is drawn toward the default by `PRIOR_PROBES` */
  probed?: number;
  /** measured while the Chinese-English dictionary was still being read, on Chinese probes without their senses: measured again once it is */
  provisional?: true;
}

// a registry's examples and aliases are a sample: this many at most are measured (every k-th)
const MAX_PROBES = 64;
// Asking a probe costs the first stage about as many postings as its rarest word has tools, so the
// probes are measured until their postings reach this: a registry whose examples use only words
// every tool has (a generated one) keeps the default rather than spend seconds on a rescan.
const POSTINGS_BUDGET = 20_000;
// tools read between two steps: a registry served from its scan cache makes each definition as it is read (~0.03 ms),
// so 2,000 a step held the event loop ~70 ms at 3,148 tools while a server prepared matching (issue #18)
const TOOLS_PER_STEP = 256;
// the default cut weighs as much as this many probes: a registry with a few examples moves it a little
const PRIOR_PROBES = 16;
// fewer probes on either side than this say nothing about where the line lies
const MIN_SIDE = 4;

/** One example or alias of a tool, asked as a request. */
export interface Probe {
  position: number;
  text: string;
}

/**
 * Measures where this registry's line between confident and weak answers lies, on its own texts:
 * each example and each alias of two words or more (at most 64, within a budget of work) is asked as a request (1) against its own tool
 * with that text left out, as a request the author did not foresee would meet it, and (2) against
 * the best of the other tools, as a request for something this tool does not do. The cut that tells
 * the two apart best is drawn toward the model's default in proportion to how few probes there were.
 * A registry without examples or aliases keeps the default.
 */
export function calibrate(index: SearchIndex, ranking: RankingParameters, model: DecisionModel): Calibration {
  return runToEnd(calibrationSteps(index, ranking, model));
}

/**
 * `calibrate`, stopping after each probe and every 256 tools read, with the same result: a server's
 * rescan runs it a slice at a time (tens of milliseconds at 10,000 tools, which no request should wait for).
 */
export function* calibrationSteps(index: SearchIndex, ranking: RankingParameters, model: DecisionModel): Generator<void, Calibration, void> {
  const probes = yield* probesSteps(index.tools);
  const fitting: number[] = [];
  const other: number[] = [];
  let postings = 0;
  let provisional = false;
  for (const probe of probes) {
    yield;
    const request = readRequest(index, probe.text, ranking.valueWeight);
    if (request.words.length === 0) continue;
    provisional ||= request.words.some((word) => word.glosses.pending === true);
    postings += Math.min(...request.words.map((word) => index.documentFrequency.get(word.terms[0]!) ?? 0));
    if (postings > POSTINGS_BUDGET) break;
    fitting.push(ownProbability(index, model, probe, request));
    const others = rankTools(index, ranking, probe.text).ranked.filter((entry) => entry.position !== probe.position);
    other.push(others.length === 0 ? 0 : fitProbability(model, decisionFeatures(others)));
  }
  const unfinished = provisional ? { provisional: true as const } : {};
  if (fitting.length < MIN_SIDE || other.length < MIN_SIDE) return { threshold: model.threshold, probes: 0, ...unfinished };
  const probed = bestCut(fitting, other, model.threshold);
  const count = fitting.length;
  const threshold = (count * probed + PRIOR_PROBES * model.threshold) / (count + PRIOR_PROBES);
  return { threshold: round(threshold), probes: count, probed: round(probed), ...unfinished };
}

/**
 * Whether the calibration of these tools asks Chinese requests (an example or alias with a Chinese
 * character), which the Chinese-English dictionary should be read for first; stops at the first.
 */
export function* hasChineseProbesSteps(tools: ToolSequence): Generator<void, boolean, void> {
  for (let position = 0; position < tools.length; position++) {
    if (position % TOOLS_PER_STEP === TOOLS_PER_STEP - 1) yield;
    const tool = tools.at(position)!;
    if (tool.examples.some(isChineseWord) || tool.aliases.some(isChineseWord)) return true;
  }
  return false;
}

/** The probes `calibrate` asks (for tests: `probesSteps` run to its end). */
export function calibrationProbes(tools: ToolSequence): Probe[] {
  return runToEnd(probesSteps(tools));
}

// A sample of every example, and every alias of two words or more (a one-word alias is a name, `git`, not a request),
// taken from their list in index order (each tool's examples, then its aliases); only the sample is analysed. The list
// is counted, not made: at 100,000 tools it was 400,000 objects made and dropped (issue #18), for 64 probes. Each tool is
// read once to count its texts (of a registry served from a scan cache, read means made: the counts are kept instead).
function* probesSteps(tools: ToolSequence): Generator<void, Probe[], void> {
  let total = 0;
  const counts = new Int32Array(tools.length);
  for (let position = 0; position < tools.length; position++) {
    if (position % TOOLS_PER_STEP === TOOLS_PER_STEP - 1) yield;
    counts[position] = textsOf(tools.at(position)!);
    total += counts[position]!;
  }
  const probes: Probe[] = [];
  const step = Math.max(1, total / (MAX_PROBES * 2));
  // the tool at `position` holds the texts from `before` on
  let position = 0;
  let before = 0;
  for (let at = 0; at < total && probes.length < MAX_PROBES; at += step) {
    const wanted = Math.floor(at);
    while (before + counts[position]! <= wanted) {
      before += counts[position]!;
      position += 1;
      if (position % TOOLS_PER_STEP === TOOLS_PER_STEP - 1) yield;
    }
    const tool = tools.at(position)!;
    const alias = wanted - before >= tool.examples.length;
    const text = alias ? tool.aliases[wanted - before - tool.examples.length]! : tool.examples[wanted - before]!;
    if (!alias || analyzeWords(text, 2).length >= 2) probes.push({ position, text });
  }
  return probes;
}

const textsOf = (tool: ToolDefinition): number => tool.examples.length + tool.aliases.length;

// the probe against its own tool as if the author had not written it
function ownProbability(index: SearchIndex, model: DecisionModel, probe: Probe, request: ReturnType<typeof readRequest>): number {
  const tool = index.tools.at(probe.position)!;
  const without = {
    ...tool,
    examples: tool.examples.filter((text) => text !== probe.text),
    aliases: tool.aliases.filter((text) => text !== probe.text),
  };
  const { record } = describeTool(without);
  const features = measureRecord(index, record, recordRarity(index, record), request, 1);
  const ranked: RankedTool[] = [{ position: probe.position, score: 1, stage1Score: 1, features }];
  return fitProbability(model, decisionFeatures(ranked));
}

// the cut with the best balanced accuracy over the two sides; of equally good cuts, the one nearest the default
function bestCut(fitting: number[], other: number[], fallback: number): number {
  const cuts = [...new Set([...fitting, ...other, fallback])].sort((a, b) => a - b);
  let best = { cut: fallback, score: -1 };
  for (const cut of cuts) {
    const score = share(fitting, (p) => p >= cut) + share(other, (p) => p < cut);
    const nearer = Math.abs(cut - fallback) < Math.abs(best.cut - fallback);
    if (score > best.score + 1e-12 || (Math.abs(score - best.score) <= 1e-12 && nearer)) best = { cut, score };
  }
  return best.cut;
}

function share(values: number[], test: (value: number) => boolean): number {
  return values.filter(test).length / values.length;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
