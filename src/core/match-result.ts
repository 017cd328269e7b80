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
  params_schema: JsonSchema;
}

/** A weakly related tool offered beside `found: false`. */
export interface NearMiss {
  name: string;
  display: string;
  score: number;
}

/** What an intent (or an unknown name) resolves to. */
export type MatchResult =
  | { found: true; candidates: Candidate[] }
  | { found: false; suggestion: string; near: NearMiss[] };
