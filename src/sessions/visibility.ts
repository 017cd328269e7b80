import { contestedMessage, eachTool, foldedKey, type ToolDefinition, type ToolIndex } from '../core/index.js';
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
 * policy work are a further layer in the same list. `reserve`, where a layer has it, answers why a tool
 * the subject may use is outside its base list: reserved (findable, loadable) until a toolset or
 * `tool_load` brings it, never forbidden. `index` is the index the tool was read from.
 */
export interface RightsLayer {
  readonly name: string;
  refuse(tool: ToolDefinition, subject: Subject, index: ToolIndex): string | undefined;
  reserve?(tool: ToolDefinition, subject: Subject, index: ToolIndex): string | undefined;
  /**
   * why the subject may not be told of a tool known only by its name (a broken `TOOL.hdlp`: its group, aliases and
   * `access:` block unread), or undefined; the layer refuses whatever it cannot be sure of. Absent: always refused.
   */
  refuseUnread?(name: string, subject: Subject, index: ToolIndex): string | undefined;
  /** what of the layer's config names nothing in `index`, logged once per index */
  warnings?(index: ToolIndex): string[];
  /** the tool's mode markers for this subject where the layer decides them (approval rules); undefined: the tool's own */
  markers?(tool: ToolDefinition, subject: Subject, index: ToolIndex): readonly string[] | undefined;
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

/**
 * The config-level deny list (`sessions.deny`): tool names, aliases and groups no session may see or run. Matched as
 * the policies' lists are, and as a call's name resolves (`foldedKey`: NFKC, any letter case, white space, ё as е),
 * and by alias too: a list that names a tool another way than the registry spells it still denies it, never silently
 * nothing. An entry 'подсчет слов' missed the alias 'подсчёт слов' that a call of 'подсчет слов' ran (review Z21-7).
 */
export function denyListRights(deny: readonly string[]): RightsLayer {
  const denied = new Set(deny.map(foldedKey));
  return {
    name: 'sessions.deny',
    warnings: (index) => contestedDenyEntries(deny, index),
    refuse(tool, _subject, index) {
      if (denied.has(foldedKey(tool.name))) return `'${tool.name}' is on the gateway's deny list (sessions.deny in the config)`;
      const alias = tool.aliases.find((name) => denied.has(foldedKey(name)));
      if (alias !== undefined) return `'${tool.name}' is on the gateway's deny list as its alias '${alias}' (sessions.deny in the config)`;
      // an alias the tool declares and was refused, since another tool answers to it: the entry could mean either (review Z, Z1)
      const refused = index.contested?.find((claim) => claim.refused.includes(tool.name) && denied.has(foldedKey(claim.name)));
      if (refused !== undefined) return `'${tool.name}' is on the gateway's deny list as '${refused.name}', an alias it declares that ${refused.holder !== undefined ? `tool '${refused.holder}' answers to` : 'another tool claims too'} (sessions.deny in the config)`;
      if (tool.group !== undefined && denied.has(foldedKey(tool.group))) return `'${tool.name}' is in group '${tool.group}', which the gateway's deny list (sessions.deny) names`;
      return undefined;
    },
    refuseUnread(name, _subject, index) {
      if (denied.has(foldedKey(name))) return `'${name}' is on the gateway's deny list (sessions.deny in the config)`;
      // an entry that is no served tool's name or alias may be the unread tool's group: it may deny it
      const names = servedNames(index);
      return deny.some((entry) => !names.has(foldedKey(entry))) ? `the gateway's deny list (sessions.deny) may name the group of '${name}', which cannot be read` : undefined;
    },
  };
}

const servedNamesOf = new WeakMap<ToolIndex, ReadonlySet<string>>();

// the names and aliases of the served tools, by name key, read once per index
function servedNames(index: ToolIndex): ReadonlySet<string> {
  let names = servedNamesOf.get(index);
  if (names === undefined) {
    const known = new Set<string>();
    for (const tool of eachTool(index)) for (const name of [tool.name, ...tool.aliases]) known.add(foldedKey(name));
    servedNamesOf.set(index, (names = known));
  }
  return names;
}

/** The entries of a deny list that name no tool, alias or group of `index`: they deny nothing there. */
export function unmatchedDenyEntries(deny: readonly string[], index: ToolIndex): string[] {
  if (deny.length === 0) return [];
  const known = new Set<string>();
  // one tool at a time: reading index.tools would make and keep every definition of a lazily read index
  for (const tool of eachTool(index)) {
    known.add(foldedKey(tool.name));
    for (const alias of tool.aliases) known.add(foldedKey(alias));
    if (tool.group !== undefined) known.add(foldedKey(tool.group));
  }
  return deny.filter((entry) => !known.has(foldedKey(entry)));
}

/** The entries of a deny list naming a contested name of `index` (one tool's, another's refused alias), said as it is read: it denies them all. */
function contestedDenyEntries(deny: readonly string[], index: ToolIndex): string[] {
  if (deny.length === 0 || !index.contested) return [];
  const denied = new Set(deny.map(foldedKey));
  return index.contested.filter((claim) => denied.has(foldedKey(claim.name))).map((claim) => contestedMessage('sessions.deny', claim.name, claim));
}

/** Why a tool has its state, as data: `decideVisibility` words it; views, which ask about every tool, never need the words. */
export type Because =
  | { state: 'forbidden'; reason: string }
  | { state: 'hidden'; by: 'alias' | 'unlisted' }
  | { state: 'visible'; by: 'toolset'; toolset: string }
  | { state: 'visible'; by: 'loaded' | 'no-toolset' }
  | { state: 'reserved'; by: 'on-demand' | 'not-in-active-toolsets' }
  | { state: 'reserved'; by: 'base-list'; reason: string };

/**
 * The lattice itself: rights first (forbidden), then advertising (hidden), then attention (visible or
 * reserved). Cheap enough to ask about every tool of a 10,000-tool index per view.
 */
export function classifyTool(tool: ToolDefinition, calledAs: string, input: VisibilityInput): Because {
  return rightsAndAdvertising(tool, calledAs, input) ?? classifyAttention(tool.name, input, () => baseListReason(tool, input));
}

/** The lattice's first two layers: forbidden by a rights layer, or hidden (an alias, an unlisted tool); undefined when attention decides. */
export function rightsAndAdvertising(tool: ToolDefinition, calledAs: string, input: VisibilityInput): Because | undefined {
  for (const layer of input.rights) {
    const reason = layer.refuse(tool, input.subject, input.registry.index);
    if (reason !== undefined) return { state: 'forbidden', reason };
  }
  if (calledAs !== tool.name) return { state: 'hidden', by: 'alias' };
  if (tool.unlisted) return { state: 'hidden', by: 'unlisted' };
  return undefined;
}

/** Why a tool the subject may use is outside its base list (a rights layer's `reserve`), if it is. */
export function baseListReason(tool: ToolDefinition, input: VisibilityInput): string | undefined {
  for (const layer of input.rights) {
    const reason = layer.reserve?.(tool, input.subject, input.registry.index);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/**
 * The attention layer, from the tool's name alone (views ask it for every tool without making them again):
 * `outsideBaseList` is asked only when no toolset is active.
 */
export function classifyAttention(name: string, input: VisibilityInput, outsideBaseList: () => string | undefined): Because {
  const { registry, attention } = input;
  const onDemand = registry.onDemand.has(name);
  for (const toolset of attention.toolsets) {
    // a toolset that names the tool beats on_demand; a whole-registry toolset does not name it
    if (registry.holds(toolset.name, name) && !(onDemand && registry.wholeRegistryToolsets.has(toolset.name))) return { state: 'visible', by: 'toolset', toolset: toolset.name };
  }
  if (attention.loaded.has(name)) return { state: 'visible', by: 'loaded' };
  if (onDemand) return { state: 'reserved', by: 'on-demand' };
  if (attention.toolsets.length === 0) {
    const reason = outsideBaseList();
    return reason === undefined ? { state: 'visible', by: 'no-toolset' } : { state: 'reserved', by: 'base-list', reason };
  }
  return { state: 'reserved', by: 'not-in-active-toolsets' };
}

/**
 * The one function that decides what a tool is for a session, called as `calledAs` (its name, or an
 * alias), with one sentence saying why. `tools/list`, the prompt block, the refusal of a call and the
 * explanation endpoint all ask it (views through `classifyTool`, the same lattice without the words),
 * so the four cannot disagree.
 */
export function decideVisibility(tool: ToolDefinition, calledAs: string, input: VisibilityInput): Visibility {
  const because = classifyTool(tool, calledAs, input);
  return { state: because.state, reason: explain(tool, calledAs, because, input) };
}

function explain(tool: ToolDefinition, calledAs: string, because: Because, { registry, attention }: VisibilityInput): string {
  const naming = registry.toolsetsNaming(tool.name);
  const way = `call tool_load with {"name": "${tool.name}"}${naming.length ? ` or enable toolset '${naming[0]}'` : ''}`;
  switch (because.state) {
    case 'forbidden':
      return because.reason;
    case 'hidden':
      return because.by === 'alias'
        ? `'${calledAs}' is an alias of '${tool.name}': a call by it runs '${tool.name}', but only '${tool.name}' is listed`
        : `'${tool.name}' is unlisted: it runs when called by name but is never advertised`;
    case 'visible':
      if (because.by === 'toolset') return `'${tool.name}' is in the active toolset '${because.toolset}'`;
      if (because.by === 'loaded') return `'${tool.name}' was loaded for this turn (tool_load, tool_find or a call that enabled its toolset)`;
      return 'no toolset is active, so every tool the session may use is listed';
    case 'reserved':
      if (because.by === 'on-demand') return `'${tool.name}' is on demand (sessions.on_demand in the config): ${way}`;
      if (because.by === 'base-list') return `${because.reason}: ${way}`;
      return `'${tool.name}' is not in the active toolsets (${attention.toolsets.map((toolset) => `'${toolset.name}'${registry.toolset(toolset.name) ? '' : ', no longer in the registry: disable it'}`).join(', ')}): ${way}`;
  }
}
