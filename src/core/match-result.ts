import type { JsonSchema } from './tool-definition.js';

/** One tool proposed for an intent, with enough to make the exact call next. */
export interface Candidate {
  name: string;
  display: string;
  intent: string;
  /** relevance, higher is better; comparable within one answer */
  score: number;
  /** which fields and terms matched, e.g. `intent: 提交, 记录` */
  matched: string[];
  /** shrunk as `tools/list` shrinks it when over 5,000 bytes of JSON (then `schema_shrunk`); a call is validated against the whole */
  params_schema: JsonSchema;
  schema_shrunk?: true;
  /** `model`: only the configured model named this tool, the words did not (review Z8, Z8-1); absent otherwise */
  stage?: 'model';
}

/** A weakly related tool offered beside `found: false`. */
export interface NearMiss {
  name: string;
  display: string;
  score: number;
}

/**
 * A tool the repository has whose `TOOL.hdlp` is broken, so it is not served, and whose folder name fits the request
 * (review userZ, Z8): told so that its author fixes it rather than writing a duplicate. Never a runnable candidate.
 */
export interface BrokenMatch {
  /** the tool's folder name, `tools/<name>/` (its definition could not be read, so its name is its folder's) */
  name: string;
  /** `tools/<name>/TOOL.hdlp` */
  path: string;
  /** the first error, `file:line:col: message` (bounded, hidden characters escaped), and how many more there are */
  error: string;
}

/**
 * A confident first candidate that takes another candidate's own requests: one of `of`'s examples or aliases, asked
 * of the registry, answers `tool` first (review Z6, Z6-2: a definition copying a reviewed tool's wording). The answer
 * is then `confidence: "low"`, so that an agent asks rather than runs.
 */
export interface Contest {
  /** the first candidate */
  tool: string;
  /** the candidate whose request it takes */
  of: string;
  /** that candidate's own example or alias which `tool` now answers first */
  text: string;
}

/**
 * How sure a `found: true` answer is. `high`: the best candidate fits the request as well as this
 * registry's tools fit their own examples. `low`: a candidate matches part of the request but the
 * evidence is weak; it is offered for the agent to judge rather than withheld.
 */
export type MatchConfidence = 'high' | 'low';

/**
 * Which stage named the candidates: the lexical search; the word vectors, when the words found nothing and one tool
 * stands out in meaning, or only near misses and the first of them is also the nearest in meaning, or the first tool
 * found through words WordNet relates to the request's is (always `low`); or
 * (configured, when those found nothing confident) a model.
 */
export type MatchStage = 'lexical' | 'vector' | 'model';

/**
 * What an intent (or an unknown name) resolves to; `found: false` only when nothing in the registry matches part of it.
 * `incomplete` says why the answer may change if asked again soon: the Chinese-English dictionary was still being read.
 * `broken`, on `found: false` or a `low` answer only: tools that would fit but whose definition is broken.
 */
export type MatchResult =
  | { found: true; confidence: MatchConfidence; stage: MatchStage; candidates: Candidate[]; incomplete?: string; broken?: BrokenMatch[]; contested?: Contest[] }
  | { found: false; suggestion: string; near: NearMiss[]; incomplete?: string; broken?: BrokenMatch[] };

/** The longest intent a match takes, in characters (code points): hldp match holds it as POST /v1/match's schema does (maxLength there). */
export const MAX_INTENT_CHARACTERS = 4000;
