import { distance } from 'fastest-levenshtein';
import { brokenDefinition, brokenToolMessage, exceedsDepth, removedAlias, removedToolWords, removedWhen, MAX_JSON_DEPTH, type NearMiss, type RemovedTools } from '../../core/index.js';
import { LIST_THE_TOOLS, missingToolSuggestion } from '../../matcher/index.js';
import type { CallOutcome } from './call-outcome.js';
import { META_TOOL_BY_NAME, metaToolWithoutSession } from './meta-calls.js';
import type { Registry } from './registry-swap.js';

// a near name at least this close in spelling (1 - edits / length) is a typo of it, not a related tool
const TYPO_SCORE = 0.6;

/**
 * What a name the index does not serve comes to: a tool whose `TOOL.hdlp` exists but is broken (its
 * diagnostics), a tool a recent rescan removed (when it went: never the advice to write it), or a missing tool,
 * whose suggestion names a registered tool spelled like it first.
 */
export function unknownToolOutcome(registry: Pick<Registry, 'index' | 'removed'>, name: string, error: string, near: NearMiss[]): Extract<CallOutcome, { kind: 'not_found' | 'broken' }> {
  const diagnostics = brokenDefinition(registry.index, name);
  if (diagnostics.length > 0) return { kind: 'broken', found: false, code: 'TOOL_BROKEN', tool: name, diagnostics, error: brokenToolMessage(name, diagnostics) };
  const removed = registry.removed?.get(name);
  if (removed) return { kind: 'not_found', found: false, code: 'TOOL_NOT_FOUND', ...removedToolWords(name, removed), near, ...removedWhen(removed) };
  // an alias the tool answered to where it was served: that tool's answer, never the advice to write the alias anew
  const aliased = removedAlias(registry.removed, name);
  if (aliased) {
    const broken = brokenDefinition(registry.index, aliased.tool);
    if (broken.length > 0) return { kind: 'broken', found: false, code: 'TOOL_BROKEN', tool: aliased.tool, diagnostics: broken, error: `'${name}' is an alias of '${aliased.tool}': ${brokenToolMessage(aliased.tool, broken)}` };
    return { kind: 'not_found', found: false, code: 'TOOL_NOT_FOUND', ...removedToolWords(name, aliased.entry, aliased.tool), near, ...removedWhen(aliased.entry) };
  }
  return missingTool(name, error, near);
}

/**
 * A missing tool's outcome naming only `offered` of its near misses (those the caller may be offered): its error
 * and suggestion name no other tool. The outcome as it was when nothing was left out.
 */
export function offeringOnly(outcome: Extract<CallOutcome, { kind: 'not_found' }>, name: string, offered: NearMiss[]): Extract<CallOutcome, { kind: 'not_found' }> {
  if (offered.length === outcome.near.length) return outcome;
  // a removed tool's words name no other tool
  if (outcome.removed_at !== undefined) return { ...outcome, near: offered };
  // worded as the matcher words an unknown name
  const hint = offered.length > 0 ? `did you mean ${offered.map((miss) => `'${miss.name}'`).join(', ')}?` : LIST_THE_TOOLS;
  return missingTool(name, `unknown tool '${name}'; ${hint}`, offered);
}

/**
 * A broken tool's call, answered to a caller who may not be told of it as an unknown name: no near name, no
 * diagnostics, and not the advice to write tools/<name>/TOOL.hdlp, a file that is there (review userZ2, U2).
 */
export function brokenAsUnknown(name: string): Extract<CallOutcome, { kind: 'not_found' }> {
  const suggestion = `no tool you may use is named '${name}'; match by intent to find one you may use, or ask a person who administers this gateway`;
  return { kind: 'not_found', found: false, code: 'TOOL_NOT_FOUND', error: `unknown tool '${name}'; ${LIST_THE_TOOLS}`, near: [], suggestion };
}

/**
 * `outcome` (of the unknown name `name`) as told to a caller who may be told only of the tools `mayKnow` passes (by
 * their names alone: `mayKnowBroken`): a broken tool's path and errors, or the removed tool an alias answered for,
 * are to anyone else a name never written (review Z2, Z2-3; review Z11, Z11-1 and Z11-2).
 */
export function toldToCaller(outcome: CallOutcome, name: string, removed: RemovedTools | undefined, mayKnow: (name: string) => boolean): CallOutcome {
  if (outcome.kind === 'broken') return mayKnow(outcome.tool) ? outcome : brokenAsUnknown(name);
  if (outcome.kind === 'not_found' && outcome.removed_at !== undefined && !removed?.has(name)) {
    const aliased = removedAlias(removed, name);
    if (aliased && !mayKnow(aliased.tool)) return brokenAsUnknown(name);
  }
  return outcome;
}

function missingTool(name: string, error: string, near: NearMiss[]): Extract<CallOutcome, { kind: 'not_found' }> {
  // a meta-tool's name outside a session: the advice to write tools/<name>/TOOL.hdlp would be refused by validation
  const meta = META_TOOL_BY_NAME.get(name);
  if (meta) return { kind: 'not_found', found: false, code: 'TOOL_NOT_FOUND', error, near, suggestion: metaToolWithoutSession(meta) };
  const typo = near.find((miss) => miss.score >= TYPO_SCORE && isTypo(name, miss.name));
  const suggestion = typo
    ? `call '${typo.name}', the registered tool spelled like '${name}'; if no registered tool fits, ${missingToolSuggestion(name, 'name')}`
    : missingToolSuggestion(name, 'name');
  return { kind: 'not_found', found: false, code: 'TOOL_NOT_FOUND', error, near, suggestion };
}

/**
 * Whether `asked` is `known` misspelt: the words in which they differ are each nearly the other. Spelling over the
 * whole name (1 - edits / length) made any two of an imported server's tools typos of each other, their long shared
 * `mcp_<server>_` prefix outweighing a whole different word: a removed `mcp_every_get-sum` was told to call
 * `mcp_every_get-env`, a tool that prints the server's environment (review userX, X1).
 */
export function isTypo(asked: string, known: string): boolean {
  const a = asked.normalize('NFKC').toLowerCase().replace(/[\s_.-]+/g, '-');
  const b = known.normalize('NFKC').toLowerCase().replace(/[\s_.-]+/g, '-');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  // the differing part, widened to the whole words it falls in
  while (start > 0 && a[start - 1] !== '-') start -= 1;
  const wordsOf = (text: string): string => {
    let to = text.length - end;
    while (to < text.length && text[to] !== '-') to += 1;
    return text.slice(start, to);
  };
  const [left, right] = [wordsOf(a), wordsOf(b)];
  return distance(left, right) <= Math.max(1, Math.floor(Math.max(left.length, right.length) / 3));
}

/** The message for params nested past the limit (cloning and validating them would recurse that deep). */
export function tooDeepParams(params: unknown): string | undefined {
  return exceedsDepth(params, MAX_JSON_DEPTH) ? `params are nested more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels` : undefined;
}
