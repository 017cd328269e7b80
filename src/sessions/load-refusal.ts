import { brokenDefinition, brokenToolMessage, removedToolWords, removedWhen, type RemovedTools, type ToolIndex, type ToolsetDefinition } from '../core/index.js';
import type { Matcher } from '../matcher/index.js';
import { refusal, type MetaAnswer } from './meta-answer.js';
import type { RegistryView } from './registry-view.js';

/** What `tool_load` of a name that is no tool nor group needs to know to say why, and what to try instead. */
export interface LoadRefusalContext {
  registry: RegistryView;
  /** the index calls start on now (its broken definitions) */
  index: ToolIndex;
  matcher: Matcher;
  /** the tools recent rescans removed, with when */
  removed?: RemovedTools;
  /** the toolsets the session's principal may use */
  usable: ReadonlySet<string>;
  /** what the session is told of a toolset the registry no longer serves (`held`: it has it active) */
  gone(name: string, held: boolean): string | undefined;
  /** whether the session has a toolset of that name (any case) active */
  holds(name: string): boolean;
  /** of these near names, those the session may be offered */
  mayOffer(names: readonly string[]): string[];
  /** whether the session may be told of the broken tool of that name (its diagnostics) */
  mayKnowBroken(name: string): boolean;
  /** why the principal may use none of the toolset's tools, naming them (as `toolset enable` says it) */
  forbiddenReason(toolset: ToolsetDefinition): string;
}

/**
 * `tool_load {name}` of a name that is no tool nor group: a toolset is enabled, not loaded; a gone toolset, a broken
 * or removed tool is told as such; anything else gets the near names the session may be offered.
 */
export function loadRefusal(name: string, context: LoadRefusalContext): MetaAnswer {
  const { registry } = context;
  // the catalogue the agent was shown names toolsets too: one of them is enabled, not loaded (review V, V6)
  const toolset = registry.toolset(name);
  if (toolset && context.usable.has(toolset.name)) return refusal('TOOL_NOT_FOUND', `'${toolset.name}' is a toolset, not a tool or group: enable it with toolset {"action": "enable", "name": "${toolset.name}"}`, { toolset: toolset.name });
  // one the principal may use nothing of is named as `toolset enable` names it, never as a name that does not exist:
  // the agent was told both (review userZ7 F15); a listing or a near name still never offers it
  if (toolset) return refusal('TOOLSET_FORBIDDEN', `'${toolset.name}' is a toolset, not a tool or group; ${context.forbiddenReason(toolset)}`, { toolset: toolset.name });
  // …and one a rescan took away is named as gone, not answered with a tool spelled like it (review userX, X2)
  const gone = toolset ? undefined : context.gone(name, context.holds(name));
  if (gone !== undefined) return refusal('TOOL_NOT_FOUND', `'${name}' is not a tool or group: ${gone}`, { toolset: name });
  // a tool whose definition is broken is answered as a call of it is, not as a missing name (review W, W6); to a
  // session that may not be told of it, as a name never written is (review Z2, Z2-3)
  const broken = brokenDefinition(context.index, name);
  if (broken.length > 0 && context.mayKnowBroken(name)) return refusal('TOOL_BROKEN', brokenToolMessage(name, broken), { tool: name, diagnostics: broken });
  const removed = context.removed?.get(name); // told as a call of it is (review userZ, Z3)
  if (removed) return refusal('TOOL_NOT_FOUND', `${removedToolWords(name, removed).error}; tool_find finds tools by what they do`, { tool: name, ...removedWhen(removed) });
  const near = context.mayOffer(nearNames(context.matcher, name));
  return refusal('TOOL_NOT_FOUND', `no tool or group '${name}'${near.length ? `; did you mean ${near.map((near) => `'${near}'`).join(', ')}?` : ''}; tool_find finds tools by what they do`);
}

function nearNames(matcher: Matcher, name: string): string[] {
  const lookup = matcher.lookup(name);
  return lookup.found ? [] : lookup.near.map((near) => near.name);
}
