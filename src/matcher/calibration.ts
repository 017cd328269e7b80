import { runToEnd, type ToolDefinition, type ToolSequence } from '../core/index.js';
import { calibrationBasisSteps, readTool, sampledText, type CalibrationBasis, type SampledText } from './calibration-basis.js';
import { decisionFeatures, fitProbability } from './decision.js';
import { measureRecord, recordRarity } from './features.js';
import { isChineseWord } from './lexicon.js';
import { rankTools, type RankedTool } from './rank.js';
import type { DecisionModel, RankingParameters } from './ranking-parameters.js';
import { readRequest } from './request-words.js';
import type { SearchIndex } from './search-index.js';
import { describeTool, type ToolRecord } from './tool-record.js';

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
// tools' counts walked over between two steps, when taking the sample
const COUNTS_PER_STEP = 8192;
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
 * A registry without examples or aliases keeps the default. `basis`, what it reads of the tools (`calibrationBasisSteps`
 * over `index.tools`), is made when not given; given, only the sampled texts it lacks are read from the tools, and the
 * cut is the same.
 */
export function calibrate(index: SearchIndex, ranking: RankingParameters, model: DecisionModel, basis?: CalibrationBasis): Calibration {
  return runToEnd(calibrationSteps(index, ranking, model, basis));
}

/**
 * `calibrate`, stopping after each probe and every 256 tools read, with the same result: a server's
 * rescan runs it a slice at a time (tens of milliseconds at 10,000 tools, which no request should wait for).
 */
export function* calibrationSteps(index: SearchIndex, ranking: RankingParameters, model: DecisionModel, given?: CalibrationBasis): Generator<void, Calibration, void> {
  const basis = given ?? (yield* calibrationBasisSteps(index.tools));
  if (basis.texts.length !== index.tools.length) throw new Error(`a calibration basis of ${basis.texts.length} tools for a search index of ${index.tools.length}`);
  const probes = yield* sampleSteps(index.tools, basis);
  const fitting: number[] = [];
  const other: number[] = [];
  let postings = 0;
  let provisional = false;
  const wordsFirstStage = ranking.meaningDepth > 0 ? { ...ranking, meaningDepth: 0 } : ranking;
  for (const { position, sampled } of probes) {
    yield;
    const request = readRequest(index, sampled.text, ranking.valueWeight);
    if (request.words.length === 0) continue;
    provisional ||= request.words.some((word) => word.glosses.pending === true);
    postings += Math.min(...request.words.map((word) => index.documentFrequency.get(word.terms[0]!) ?? 0));
    if (postings > POSTINGS_BUDGET) break;
    fitting.push(ownProbability(index, model, position, sampled, request));
    // the best other tool by the words' own order, as whether anything matches is judged: the vectors re-order the
    // candidates, and which probes have one (a Chinese example has by its senses) must not move the cut (0.487 → 0.616
    // for the starter tools when their Chinese examples got vectors, and 14 points fewer confident answers right)
    // (and the words' own first stage: a tool meaning alone brings up is no other tool the words rank, and its cosines
    // would cost every probe a pass over the registry's vectors)
    const others = rankTools(index, wordsFirstStage, sampled.text)
      .ranked.filter((entry) => entry.position !== position)
      .sort((a, b) => b.wordsScore - a.wordsScore || a.position - b.position);
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
    const tool = readTool(tools, position);
    if (tool.examples.some(isChineseWord) || tool.aliases.some(isChineseWord)) return true;
  }
  return false;
}

/** The probes `calibrate` asks (for tests: the sample run to its end). */
export function calibrationProbes(tools: ToolSequence, basis?: CalibrationBasis): Probe[] {
  const probes = runToEnd(sampleSteps(tools, basis ?? runToEnd(calibrationBasisSteps(tools))));
  return probes.map(({ position, sampled }) => ({ position, text: sampled.text }));
}

// A sample of every example, and every alias of two words or more (a one-word alias is a name, `git`, not a request),
// taken from their list in index order (each tool's examples, then its aliases); only the sample is analysed. The list
// is counted, not made: at 100,000 tools it was 400,000 objects made and dropped (issue #18), for 64 probes. The counts
// are the basis's, and a text sampled is read from its tool only where the basis does not have it yet.
function* sampleSteps(tools: ToolSequence, basis: CalibrationBasis): Generator<void, Array<{ position: number; sampled: SampledText }>, void> {
  const counts = basis.texts;
  const probes: Array<{ position: number; sampled: SampledText }> = [];
  const step = Math.max(1, basis.total / (MAX_PROBES * 2));
  // the tool at `position` holds the texts from `before` on
  let position = 0;
  let before = 0;
  for (let at = 0; at < basis.total && probes.length < MAX_PROBES; at += step) {
    const wanted = Math.floor(at);
    while (before + counts[position]! <= wanted) {
      before += counts[position]!;
      position += 1;
      if (position % COUNTS_PER_STEP === COUNTS_PER_STEP - 1) yield;
    }
    const sampled = sampledText(basis, tools, position, wanted - before);
    if (sampled.probe) probes.push({ position, sampled });
  }
  return probes;
}

// the probe against its own tool as if the author had not written it
function ownProbability(index: SearchIndex, model: DecisionModel, position: number, sampled: SampledText, request: ReturnType<typeof readRequest>): number {
  sampled.without ??= withoutText(readTool(index.tools, position), sampled.text);
  const record = sampled.without;
  const features = measureRecord(index, record, recordRarity(index, record), request, 1);
  const ranked: RankedTool[] = [{ position, score: 1, stage1Score: 1, features, similarity: 0, wordsScore: 1 }];
  return fitProbability(model, decisionFeatures(ranked));
}

// the tool analysed with every example and alias equal to `text` left out
function withoutText(tool: ToolDefinition, text: string): ToolRecord {
  const without = { ...tool, examples: tool.examples.filter((other) => other !== text), aliases: tool.aliases.filter((other) => other !== text) };
  return describeTool(without).record;
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
