import type { QueryWord } from './request-words.js';
import type { SearchIndex } from './search-index.js';
import { cosinesOf, MAX_PREPARED_TOOLS } from './similarity.js';

/**
 * The vector stage (issue #11): where the words find nothing (`found: false`), how near in meaning every tool of the
 * registry is to the request (the cosine of their word vectors, `similarity.ts`), and the nearest offered — with
 * `confidence: "low"`, `stage: "vector"` — only when it stands out from the registry's cosines by Grubbs' test: the
 * test rejects, at level `VECTOR_STAGE_LEVEL`, that the nearest's cosine is the largest of n drawn from one normal
 * distribution (n: the registry's tools with a vector). No pool size or fixed cosine enters it: the critical value
 * grows with n (at 0.2: 1.49 sample deviations at 5 tools, 1.95 at 12, 2.39 at 32, 3.83 at 3,148) and is bounded by
 * (n−1)/√n, the most any of n values can stand out, so fewer than 3 tools never pass. The answer depends on the
 * request and the registry alone: every tool's cosine, each tool's vector made the same way whenever it is made.
 */

/** The test's level: chosen on BFCL's even half alone (the most permissive conventional level within the landing rule there). */
export const VECTOR_STAGE_LEVEL = 0.2;

/**
 * The most tools a registry may have for the stage to run: a pass costs one cosine a tool (~1-2 ms at 10,000, ~15 ms
 * at 100,000, over the 2 ms a warm match has as a goal), and this is the bound under which a server makes every
 * tool's vector before matching is ready. A registry past it answers as the words do (the rule is its size alone).
 */
export const MAX_VECTOR_STAGE_TOOLS = MAX_PREPARED_TOOLS;

/** What the stage found: the nearest tools by position, best first, with their cosines, and the test's figures. */
export interface VectorAnswer {
  positions: number[];
  cosines: number[];
  /** the nearest's distance from the mean, in sample standard deviations */
  statistic: number;
  /** the critical value it passed */
  critical: number;
  /** the tools with a vector, over which the test ran */
  tools: number;
}

/**
 * The stage over `index` for a request's words: up to `count` nearest tools when the nearest stands out, else
 * undefined (no vector for the request, fewer than 3 tools with one, more than `maxTools` tools, or nothing stands out).
 * `known`: the request's cosines where the ranking made them already (the hybrid first stage), not made again.
 */
export function vectorStage(
  index: SearchIndex,
  words: readonly QueryWord[],
  foreign: boolean,
  count: number,
  maxTools: number = MAX_VECTOR_STAGE_TOOLS,
  known?: Float64Array,
): VectorAnswer | undefined {
  if (index.records.length > maxTools || index.records.length < 3 || words.length === 0) return undefined;
  const cosines = known ?? cosinesOf(index, words, foreign);
  if (cosines === undefined) return undefined;
  const standing = nearestStanding(cosines);
  if (standing === undefined) return undefined;
  const { statistic, tools: n } = standing;
  const critical = grubbsCritical(n, VECTOR_STAGE_LEVEL);
  if (!(statistic >= critical)) return undefined;
  const nearest = nearestPositions(cosines, count);
  return { positions: nearest, cosines: nearest.map((position) => cosines[position]!), statistic, critical, tools: n };
}

/** The nearest tool by cosine and how far it stands out (Grubbs' G over the n tools with a vector), or undefined. */
function nearestStanding(cosines: Float64Array): { best: number; statistic: number; tools: number } | undefined {
  let n = 0;
  let sum = 0;
  let best = -1;
  for (let position = 0; position < cosines.length; position++) {
    const cosine = cosines[position]!;
    if (Number.isNaN(cosine)) continue;
    n += 1;
    sum += cosine;
    if (best < 0 || cosine > cosines[best]!) best = position;
  }
  if (n < 3 || !(cosines[best]! > 0)) return undefined;
  const mean = sum / n;
  let squares = 0;
  for (const cosine of cosines) if (!Number.isNaN(cosine)) squares += (cosine - mean) ** 2;
  const deviation = Math.sqrt(squares / (n - 1));
  if (!(deviation > 0)) return undefined;
  return { best, statistic: (cosines[best]! - mean) / deviation, tools: n };
}

/**
 * Whether the words' first near miss (`wordsFirst`: the tool the words rank first among those having a word of the
 * request, too weakly for the words to say it fits) is also meaning's nearest, and the two together are unlikely by
 * chance at the stage's level: Fisher's combination of Grubbs' p-value for the nearest standing out (p_G) and the
 * chance that the nearest of n tools is the words' one (1/n, independent of the cosines), −2·ln(p_G/n) against χ² with
 * 4 degrees of freedom, whose tail is P·(1 − ln P) for P = p_G/n. No new constant: the stage's `VECTOR_STAGE_LEVEL`.
 */
export function meaningAgrees(cosines: Float64Array, wordsFirst: number): boolean {
  const standing = nearestStanding(cosines);
  if (standing === undefined || standing.best !== wordsFirst) return false;
  const product = grubbsPValue(standing.statistic, standing.tools) / standing.tools;
  return product > 0 ? product * (1 - Math.log(product)) <= VECTOR_STAGE_LEVEL : true;
}

/**
 * The p-value of Grubbs' statistic G for the largest of n values: n·P(T > t), T Student's t with n−2 degrees of freedom
 * and t = √(n(n−2)G² / ((n−1)² − nG²)) (the inverse of `grubbsCritical`'s formula), at most 1.
 */
export function grubbsPValue(statistic: number, n: number): number {
  const room = (n - 1) ** 2 - n * statistic * statistic;
  if (!(room > 0)) return 0;
  const t = Math.sqrt((n * (n - 2) * statistic * statistic) / room);
  const df = n - 2;
  return Math.min(1, (n * regularizedBeta(df / (df + t * t), df / 2, 0.5)) / 2);
}

// the `count` positions of the largest positive cosines, largest first (ties: the earlier position)
function nearestPositions(cosines: Float64Array, count: number): number[] {
  const chosen: number[] = [];
  for (let position = 0; position < cosines.length; position++) {
    const cosine = cosines[position]!;
    if (!(cosine > 0)) continue;
    let at = chosen.length;
    while (at > 0 && cosines[chosen[at - 1]!]! < cosine) at -= 1;
    if (at >= count) continue;
    chosen.splice(at, 0, position);
    if (chosen.length > count) chosen.pop();
  }
  return chosen;
}

const criticalValues = new Map<string, number>();

/**
 * Grubbs' critical value for the largest of n values at level `alpha` (one-sided):
 * ((n−1)/√n)·√(t² / (n−2+t²)), t Student's upper alpha/n quantile with n−2 degrees of freedom. Worked out once per (n, alpha).
 */
export function grubbsCritical(n: number, alpha: number): number {
  const key = `${n} ${alpha}`;
  let value = criticalValues.get(key);
  if (value === undefined) {
    const t = studentUpperQuantile(alpha / n, n - 2);
    value = ((n - 1) / Math.sqrt(n)) * Math.sqrt((t * t) / (n - 2 + t * t));
    criticalValues.set(key, value);
  }
  return value;
}

/** The t with P(T > t) = p for Student's t with `df` degrees of freedom (0 < p < 0.5), by bisection on its tail. */
export function studentUpperQuantile(p: number, df: number): number {
  // P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t²): increasing in x, x from 0 (t infinite) to 1 (t = 0)
  let low = 0;
  let high = 1;
  for (let step = 0; step < 200 && high - low > 1e-15; step++) {
    const middle = (low + high) / 2;
    if (regularizedBeta(middle, df / 2, 0.5) / 2 < p) low = middle;
    else high = middle;
  }
  const x = (low + high) / 2;
  return Math.sqrt((df * (1 - x)) / x);
}

// I_x(a, b), the regularised incomplete beta function, by its continued fraction (Numerical Recipes' betacf)
function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let term = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + term * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + term / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    term = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + term * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + term / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

// ln Γ(z) for z > 0 (Lanczos, g = 7, nine coefficients)
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
function logGamma(z: number): number {
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  const shifted = z - 1;
  let sum = LANCZOS[0]!;
  for (let at = 1; at < LANCZOS.length; at++) sum += LANCZOS[at]! / (shifted + at);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}
