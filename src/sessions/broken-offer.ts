import type { MatchResult, ToolIndex } from '../core/index.js';
import { brokenToolSuggestion } from '../matcher/index.js';
import type { RightsLayer, Subject } from './visibility.js';

/**
 * Whether the session's caller (or `principal`) may be told of a broken tool: every rights layer must say so by its name alone
 * (`refuseUnread`), since a broken tool has no definition to read its group, aliases or `access:` block from. A layer
 * that cannot judge a tool it cannot read refuses it: fail closed (review Z2, Z2-3).
 */
export function mayKnowBroken(rights: readonly RightsLayer[], index: ToolIndex, session?: string, principal?: string): (name: string) => boolean {
  const subject: Subject = { ...(session === undefined ? {} : { session }), ...(principal === undefined ? {} : { principal }) };
  return (name) => rights.every((layer) => layer.refuseUnread !== undefined && layer.refuseUnread(name, subject, index) === undefined);
}

/**
 * `result` with only the broken tools `mayKnow` passes, and a `found: false` answer's suggestion said again without
 * the others: an answer never names a broken tool, its path or its first error to a caller who could not be offered
 * that tool were it served (review Z2, Z2-3).
 */
export function withOfferedBroken(result: MatchResult, mayKnow: (name: string) => boolean): MatchResult {
  const broken = result.broken;
  if (broken === undefined) return result;
  const kept = broken.filter((match) => mayKnow(match.name));
  if (kept.length === broken.length) return result;
  const { broken: _dropped, ...rest } = result;
  if (rest.found) return kept.length > 0 ? { ...rest, broken: kept } : rest;
  // the suggestion names the first broken tool: it is the matcher's own sentence after that part, or, if not read so, the plain one
  const head = brokenToolSuggestion(broken, '');
  const otherwise = rest.suggestion.startsWith(head) ? rest.suggestion.slice(head.length) : 'no tool you may use fits; describe the task differently or ask a person';
  return kept.length > 0 ? { ...rest, suggestion: brokenToolSuggestion(kept, otherwise), broken: kept } : { ...rest, suggestion: otherwise };
}
