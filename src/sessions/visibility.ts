import type { ToolDefinition } from '../core/index.js';
import type { RegistryView } from './registry-view.js';
import type { ActiveToolset } from './session-state.js';

/**
 * What a tool is for one session (seed 003's lattice): `visible` (listed with its schema, runs),
 * `reserved` (allowed but not in an active toolset: findable, loadable, listed by name and purpose),
 * `hidden` (runs when called by that name, never advertised), `forbidden` (the rights layer says no).
 */
export type ToolState = 'visible' | 'reserved' | 'hidden' | 'forbidden';

/** A tool's state for a session, and one sentence saying why. */
export interface Visibility {
  state: ToolState;
  reason: string;
}

/** Who asks: the session (if any) and, once principals exist, who it acts for. */
export interface Subject {
  session?: string;
  principal?: string;
}

/**
 * One layer of rights: answers a reason to refuse, or undefined. Refusals are `forbidden`, which nothing
 * the session does (toolsets, tool_load, tool_call) can lift. The principals and access rules of the
 * policy work are further layers in the same list.
 */
export interface RightsLayer {
  readonly name: string;
  refuse(tool: ToolDefinition, subject: Subject): string | undefined;
}

/** The attention layer's input: what the session has active now (expired entries already gone). */
export interface Attention {
  toolsets: readonly ActiveToolset[];
  loaded: ReadonlySet<string>;
}

/** Everything `decideVisibility` reads. */
export interface VisibilityInput {
  registry: RegistryView;
  rights: readonly RightsLayer[];
  subject: Subject;
  attention: Attention;
}

/** The config-level deny list (`sessions.deny`): tool names and groups no session may see or run. */
export function denyListRights(deny: readonly string[]): RightsLayer {
  const denied = new Set(deny);
  return {
    name: 'sessions.deny',
    refuse(tool) {
      if (denied.has(tool.name)) return `'${tool.name}' is on the gateway's deny list (sessions.deny in the config)`;
      if (tool.group !== undefined && denied.has(tool.group)) return `'${tool.name}' is in group '${tool.group}', which the gateway's deny list (sessions.deny) names`;
      return undefined;
    },
  };
}

/**
 * The one function that decides what a tool is for a session, called as `calledAs` (its name, or an
 * alias). `tools/list`, the prompt block, the refusal of a call and the explanation endpoint all ask it,
 * so the four cannot disagree. Rights come first (forbidden), then advertising (hidden), then attention.
 */
export function decideVisibility(tool: ToolDefinition, calledAs: string, input: VisibilityInput): Visibility {
  for (const layer of input.rights) {
    const reason = layer.refuse(tool, input.subject);
    if (reason !== undefined) return { state: 'forbidden', reason };
  }
  if (calledAs !== tool.name) return { state: 'hidden', reason: `'${calledAs}' is an alias of '${tool.name}': a call by it runs '${tool.name}', but only '${tool.name}' is listed` };
  if (tool.unlisted) return { state: 'hidden', reason: `'${tool.name}' is unlisted: it runs when called by name but is never advertised` };
  return attention(tool, input);
}

function attention(tool: ToolDefinition, { registry, attention: { toolsets, loaded } }: VisibilityInput): Visibility {
  const onDemand = registry.onDemand.has(tool.name);
  for (const toolset of toolsets) {
    // a toolset that names the tool beats on_demand; a whole-registry toolset does not name it
    if (registry.holds(toolset.name, tool.name) && !(onDemand && registry.wholeRegistryToolsets.has(toolset.name))) {
      return { state: 'visible', reason: `'${tool.name}' is in the active toolset '${toolset.name}'` };
    }
  }
  if (loaded.has(tool.name)) return { state: 'visible', reason: `'${tool.name}' was loaded for this turn (tool_load, tool_find or a call that enabled its toolset)` };
  const naming = registry.toolsetsNaming(tool.name);
  const way = `call tool_load with {"name": "${tool.name}"}${naming.length ? ` or enable toolset '${naming[0]}'` : ''}`;
  if (onDemand) return { state: 'reserved', reason: `'${tool.name}' is on demand (sessions.on_demand in the config): ${way}` };
  if (toolsets.length === 0) return { state: 'visible', reason: 'no toolset is active, so every tool the session may use is listed' };
  const active = toolsets.map((toolset) => `'${toolset.name}'`).join(', ');
  return { state: 'reserved', reason: `'${tool.name}' is not in the active toolsets (${active}): ${way}` };
}
