import { didYouMean, toolNameAt, toolsOf, type SkillDefinition, type ToolsetDefinition } from '../core/index.js';
import { refusal, type MetaAnswer } from './meta-answer.js';
import type { RegistryView } from './registry-view.js';
import { disableToolsets, enableToolset, type SessionState, type ToolsetScope } from './session-state.js';
import { signatureLine } from './signatures.js';
import { toolsAtPositions, type SessionView } from './session-view.js';

/** `toolset {action, name?, scope?}` as checked. */
export interface ToolsetRequest {
  action: 'list' | 'enable' | 'disable';
  name?: string;
  scope?: ToolsetScope;
}

/** What the toolset tool needs of its session manager. */
export interface ToolsetContext {
  registry: RegistryView;
  state: SessionState;
  now: number;
  ttlMs: number;
  /** the session's view once the change is made, to name the tools a toolset brings */
  viewAfter(): SessionView;
  /** the session's skill index (skills whose toolset is active are left out) */
  skillIndex(): readonly SkillDefinition[];
  /** the toolsets holding a tool the session's principal may use: only these are offered or enabled */
  usable: ReadonlySet<string>;
  /** why the principal may use none of the toolset's tools, naming them */
  forbiddenReason(toolset: ToolsetDefinition): string;
  /** what the session is told of a toolset the registry no longer serves (undefined: it serves it, or never had it); `held`: the session has it active */
  gone(name: string, held: boolean): string | undefined;
}

/** The `toolset` meta-tool, idempotent and forgiving with seed 000 §2's answers. */
export function toolsetTool(request: ToolsetRequest, context: ToolsetContext): MetaAnswer {
  const { registry, state } = context;
  const offered = offeredToolsets(registry, context.usable);
  const available = (): string => offered.map((toolset) => toolset.name).join(', ') || 'none';
  if (request.action === 'list') {
    const skills = context.skillIndex();
    // a toolset the session holds that a rescan took away is said, with what to do, not listed as if it were there
    const gone = state.toolsets.map((active) => context.gone(active.name, true)).filter((line) => line !== undefined);
    const message = [catalogue(registry, offered, state), ...gone, ...(skills.length ? ['Skills (read one with read_skill):', ...skills.map((skill) => `- ${skill.name} — ${skill.description}`)] : [])].join('\n');
    return { ok: true, message, data: { toolsets: listing(offered, state), skills: skills.map((skill) => skill.name) }, changed: false };
  }
  if (request.action === 'disable') {
    if (state.toolsets.length === 0) return { ok: true, code: 'NONE_ACTIVE', message: 'no active toolsets', data: { active: [] }, changed: false };
    // the name the session holds, even one a rescan dropped from the index: it can always be put down (review userX, X2)
    const held = request.name === undefined ? undefined : (state.toolsets.find((active) => active.name === registry.toolset(request.name!)?.name) ?? state.toolsets.find((active) => active.name.toLowerCase() === request.name!.toLowerCase()));
    if (request.name !== undefined && !held) {
      const active = state.toolsets.map((entry) => entry.name).join(', ');
      return { ok: true, code: 'NOT_ACTIVE', message: `toolset '${request.name}' is not active; active: ${active}`, data: { active: state.toolsets.map((entry) => entry.name) }, changed: false };
    }
    const wasGone = state.toolsets.filter((active) => (held === undefined || active === held) && !registry.toolset(active.name)).map((active) => `'${active.name}'`);
    const removed = disableToolsets(state, held?.name);
    const left = state.toolsets.map((entry) => entry.name);
    const note = wasGone.length ? ` (${wasGone.join(', ')} ${wasGone.length === 1 ? 'was' : 'were'} no longer in the registry)` : '';
    return { ok: true, message: `disabled ${removed.map((name) => `'${name}'`).join(', ')}${note}; active toolsets: ${left.join(', ') || 'none'}`, data: { disabled: removed, active: left }, changed: true };
  }
  if (request.name === undefined) return refusal('INVALID_PARAMS', `toolset enable needs a name; available: ${available()}`);
  const toolset = registry.toolset(request.name);
  if (!toolset) {
    // one a rescan took away is named as gone, and why, not as a name that never was (review userX, X2)
    const gone = context.gone(request.name, state.toolsets.some((active) => active.name.toLowerCase() === request.name!.toLowerCase()));
    return refusal('TOOLSET_NOT_FOUND', `${gone === undefined ? `no toolset ${request.name}${didYouMean(request.name, offered.map((entry) => entry.name))}` : gone}; available: ${available()}`, { available: offered.map((entry) => entry.name) });
  }
  // enabling it would list none of its tools and hide the ones the session has: refused, saying why (review V, V2)
  if (!context.usable.has(toolset.name)) return refusal('TOOLSET_FORBIDDEN', `${context.forbiddenReason(toolset)}; available: ${available()}`, { available: offered.map((entry) => entry.name) });
  const scope = request.scope ?? 'session';
  const outcome = enableToolset(state, toolset.name, scope, context.now + context.ttlMs);
  const lines = registryLines(toolset, context);
  const minutes = Math.round(context.ttlMs / 60_000);
  const lifetime = scope === 'turn' ? 'until this turn ends' : `for ${minutes} minutes after the last call of one of its tools`;
  const head = outcome === 'extended' ? `toolset '${toolset.name}' is already active; its timeout is extended (${lifetime}).` : `toolset '${toolset.name}' is active ${lifetime}.`;
  const message = [head, `Its tools:`, ...lines.map((line) => `- ${line}`), ...(toolset.hint ? [`Hint: ${toolset.hint.trim()}`] : [])].join('\n');
  return {
    ok: true,
    ...(outcome === 'extended' ? { code: 'ALREADY_ACTIVE' } : {}),
    message,
    data: { toolset: toolset.name, status: outcome, scope, tools: lines, ...(toolset.hint ? { hint: toolset.hint } : {}) },
    changed: outcome === 'enabled',
  };
}

/** The toolset's registry as one-line signatures: the tools it brings that the session may see, in index order. */
export function registryLines(toolset: ToolsetDefinition, context: Pick<ToolsetContext, 'registry' | 'viewAfter'>): string[] {
  const { registry } = context;
  const sequence = toolsOf(registry.index);
  // by position and name: only the tools the toolset brings are made, one at a time (a whole-registry toolset's are all)
  const view = context.viewAfter();
  const brought = view.positions.visible.filter((position) => registry.holds(toolset.name, toolNameAt(sequence, position)!));
  return toolsAtPositions(registry.index, brought).map((tool) => signatureLine(tool, tool.name, view.markersOf(tool)));
}

/** The registry's toolsets the principal may use a tool of, in index order: the others are not offered (visible ⊆ allowed). */
export function offeredToolsets(registry: RegistryView, usable: ReadonlySet<string>): ToolsetDefinition[] {
  return registry.index.toolsets.filter((toolset) => usable.has(toolset.name));
}

function listing(offered: readonly ToolsetDefinition[], state: SessionState): Array<Record<string, unknown>> {
  return offered.map((toolset) => {
    const active = state.toolsets.find((entry) => entry.name === toolset.name);
    return { name: toolset.name, description: toolset.description, active: active !== undefined, ...(active ? { scope: active.scope, expires_at: active.deadline === null ? null : new Date(active.deadline).toISOString() } : {}) };
  });
}

function catalogue(registry: RegistryView, offered: readonly ToolsetDefinition[], state: SessionState): string {
  if (registry.toolsets.size === 0) return 'this registry has no toolsets: every tool is listed';
  if (offered.length === 0) return 'no toolset of this registry holds a tool you may use: every tool you may use is listed';
  const lines = offered.map((toolset) => `- ${toolset.name}${state.toolsets.some((active) => active.name === toolset.name) ? ' [active]' : ''} — ${toolset.description}`);
  return [`Toolsets (enable one with {"action": "enable", "name": …}):`, ...lines, `Active toolsets: ${state.toolsets.map((toolset) => toolset.name).join(', ') || 'none'}`].join('\n');
}
