import type { MatchResult, ToolIndex } from '../core/index.js';
import { brokenToolSuggestion } from '../matcher/index.js';
import type { RightsLayer, Subject } from './visibility.js';

/** What a caller is told when nothing it may use fits, and something it may not be told of may (never "write it"). */
export const NO_TOOL_YOU_MAY_USE = 'no tool you may use fits; describe the task differently or ask a person';

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
 * the others (and without the advice to write a new tool): an answer never names a broken tool, its path or its first error to a caller who could not be offered
 * that tool were it served (review Z2, Z2-3).
 */
export function withOfferedBroken(result: MatchResult, mayKnow: (name: string) => boolean): MatchResult {
  const broken = result.broken;
  if (broken === undefined) return result;
  const kept = broken.filter((match) => mayKnow(match.name));
  if (kept.length === broken.length) return result;
  const { broken: _dropped, ...rest } = result;
  if (rest.found) return kept.length > 0 ? { ...rest, broken: kept } : rest;
  // not the matcher's own "write its definition at tools/<slug>/": a dropped broken file may sit there, or be the tool
  // asked for under another name, and the caller would be told to write over a reviewed file (review userZ2, U2)
  return kept.length > 0 ? { ...rest, suggestion: brokenToolSuggestion(kept, NO_TOOL_YOU_MAY_USE), broken: kept } : { ...rest, suggestion: NO_TOOL_YOU_MAY_USE };
}
