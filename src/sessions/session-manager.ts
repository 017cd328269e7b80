import { randomUUID } from 'node:crypto';
import { didYouMean, type MatchResult, type RemovedTools, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../core/index.js';
import type { Matcher } from '../matcher/index.js';
import { systemClock, type Clock } from './clock.js';
import { refusal, type MetaAnswer } from './meta-answer.js';
import { loadRefusal } from './load-refusal.js';
import { promptBlockOf, type PromptOptions } from './session-prompt.js';
import type { PromptBlock } from './prompt-block.js';
import { RegistryView } from './registry-view.js';
import { DEFAULT_SESSIONS_CONFIG, type SessionsConfig } from './sessions-config.js';
import { endTurn, expireSession, loadTools, newSessionState, touchAfterCall, type SessionState } from './session-state.js';
import { MemorySessionStore, type SessionStore } from './session-store.js';
import { ViewCache, type SessionView } from './session-view.js';
import { signatureLine as signatureOf } from './signatures.js';
import { offeredToolsets, registryLines, toolsetTool, type ToolsetRequest } from './toolset-tool.js';
import { decideVisibility, denyListRights, unmatchedDenyEntries, type RightsLayer, type Visibility } from './visibility.js';
import { GoneToolsets } from './gone-toolsets.js';
import { mayKnowBroken, NO_TOOL_YOU_MAY_USE, withOfferedBroken } from './broken-offer.js';

/** The index and matcher calls start on now (the gateway's registry, swapped on rescan). */
export interface SessionRegistry {
  index: ToolIndex;
  matcher: Matcher;
  /** the tools recent rescans removed: `tool_load` of one says when it went */
  removed?: RemovedTools;
}

/** How to build a session manager; the store, clock and further rights layers are injected. */
export interface SessionsOptions {
  registry: () => SessionRegistry;
  config?: Partial<SessionsConfig>;
  store?: SessionStore;
  clock?: Clock;
  /** rights layers after the config's deny list (the principals work adds its access rules here) */
  rights?: readonly RightsLayer[];
  logger?: { warn(details: object, message: string): void };
}

/** What a call by name comes to for a session, before anything runs. */
export type CallDecision =
  /** no tool of that name or alias: the gateway answers as for any unknown tool */
  | { kind: 'unknown' }
  | { kind: 'run'; tool: ToolDefinition; visibility: Visibility }
  | { kind: 'refuse'; tool: ToolDefinition; visibility: Visibility }
  /** reserved: its toolset is enabled (or the tool loaded) instead; nothing ran */
  | { kind: 'substitute'; tool: ToolDefinition; toolset: string | null; tools: string[]; message: string };

/** What the explanation endpoint answers: one word, and one sentence. */
export type Explanation = { found: true; tool: string; called_as: string; state: Visibility['state']; reason: string } | { found: false; tool: string; reason: string };

/**
 * Agent sessions (seeds 000, 001, 003): each holds its active toolsets and loaded tools; one function
 * (`decideVisibility`) says what every tool is for it, and this class answers the meta-tools, the
 * explanation endpoint, the prompt block and the call decision from it.
 */
export class SessionManager {
  readonly config: SessionsConfig;
  readonly store: SessionStore;
  readonly clock: Clock;
  /** the rights layers: `sessions.deny`, then the injected ones (principals and access rules) */
  readonly rights: readonly RightsLayer[];
  private readonly caches = new WeakMap<ToolIndex, ViewCache>();
  // per index, the toolsets an earlier index of this process served that it lacks, with the commit they went at
  private readonly gone = new GoneToolsets();

  constructor(private readonly options: SessionsOptions) {
    this.config = { ...DEFAULT_SESSIONS_CONFIG, ...options.config };
    this.clock = options.clock ?? systemClock;
    this.store = options.store ?? new MemorySessionStore({ maxSessions: this.config.maxSessions, maxPerPrincipal: this.config.maxSessionsPerPrincipal, idleMs: this.config.idleMs, now: this.clock });
    this.rights = [...(this.config.deny.length ? [denyListRights(this.config.deny)] : []), ...(options.rights ?? [])];
  }

  /**
   * Opens a session, with `toolsets` enabled for as long as it lives (connect-time selection); unknown names are
   * refused. `id` is for an MCP connection, whose session takes the connection's id so that any instance finds it.
   * `restored`: the connection's toolsets were accepted when it opened, and its agent session is lost (a restart, an
   * instance without it): each is held again, and one a rescan took away since is told as gone (`gone`), as a session
   * that lived through the rescan holds it, rather than refused.
   */
  async open(options: { toolsets?: readonly string[]; principal?: string; id?: string; restored?: boolean } = {}): Promise<{ ok: true; session: SessionState; gone: Array<{ name: string; message: string }> } | { ok: false; code: 'TOOLSET_NOT_FOUND' | 'TOOLSET_FORBIDDEN'; message: string }> {
    const registry = this.registryView();
    const problem = options.restored ? undefined : this.toolsetProblem(options.toolsets ?? [], options.principal);
    if (problem) return { ok: false, ...problem };
    const state = newSessionState(options.id ?? randomUUID(), this.clock(), options.principal);
    for (const name of options.toolsets ?? []) {
      const held = registry.toolset(name)?.name ?? name;
      if (!state.toolsets.some((active) => active.name.toLowerCase() === held.toLowerCase())) state.toolsets.push({ name: held, scope: 'session', deadline: null });
    }
    await this.store.save(state);
    return { ok: true, session: state, gone: this.goneHeld(state) };
  }

  /** Why `principal` cannot have these toolsets from the start: one is unknown, or holds no tool it may use; undefined when it can. */
  toolsetProblem(names: readonly string[], principal: string | undefined): { code: 'TOOLSET_NOT_FOUND' | 'TOOLSET_FORBIDDEN'; message: string } | undefined {
    const registry = this.registryView();
    const usable = this.usableToolsets(undefined, principal);
    const offered = offeredToolsets(registry, usable).map((toolset) => toolset.name), available = offered.join(', ') || 'none';
    const unknown = names.filter((name) => !registry.toolset(name));
    // a toolset a rescan took away is named as gone, and why, not as a name that never was (review userX, X2)
    const said = unknown.map((name) => this.goneToolset(name, false, principal) ?? `no toolset ${name}${didYouMean(name, offered)}`);
    if (unknown.length) return { code: 'TOOLSET_NOT_FOUND', message: `${said.join('; ')}; available: ${available}` };
    // a connection that asks for a toolset it may use nothing of would list only the meta-tools (review V, V2)
    const forbidden = names.map((name) => registry.toolset(name)!).find((toolset) => !usable.has(toolset.name));
    return forbidden ? { code: 'TOOLSET_FORBIDDEN', message: `${this.forbiddenReason(registry, undefined, forbidden, principal)}; available: ${available}` } : undefined;
  }

  /**
   * The session, if it is open (and, with `owner`, opened by that principal); marks it used. Another principal's
   * session is not found and left as it was: a probe with a leaked id neither keeps it from idling out nor moves it
   * in its principal's least-recently-used order.
   */
  async get(id: string, owner?: { principal: string | undefined }): Promise<SessionState | undefined> {
    const state = await this.store.get(id);
    if (!state || (owner !== undefined && state.principal !== owner.principal)) return undefined;
    state.last_used = this.clock();
    await this.store.save(state);
    return state;
  }

  /** Whether a session of any principal is open under `id`; reads it without marking it used. */
  async exists(id: string): Promise<boolean> {
    return (await this.store.get(id)) !== undefined;
  }

  /** The sessions held now, most recently used first, without marking them used. */
  list(): Promise<SessionState[]> {
    return this.store.list();
  }

  /** Ends a session; false if it was not open. */
  close(id: string): Promise<boolean> {
    return this.store.delete(id);
  }

  /** Writes a session after a change (a no-op for the memory store, which holds the object itself). */
  save(state: SessionState): Promise<void> {
    state.last_used = this.clock();
    return this.store.save(state);
  }

  /** Whether other gateway instances see these sessions (`sessions.store`). */
  get shared(): boolean {
    return this.store.shared === true;
  }

  /** Resolves once the session's changes have reached the store: await it before answering, as the next request may land at another instance. */
  async settle(state: SessionState): Promise<void> {
    await this.store.settle?.(state.id);
  }

  // a write nobody waits for: a failure is the store's to report (StoredSessionStore logs it), never an unhandled rejection
  private persist(state: SessionState, touch = true): void {
    (touch ? this.save(state) : this.store.save(state)).catch(() => undefined);
  }

  /** A rescan swaps `previous` for `next`: the toolsets it takes away are remembered with the commit they went at. */
  noteSwap(previous: ToolIndex, next: ToolIndex): void {
    this.gone.noteSwap(previous, next);
  }

  /**
   * What a session is told of a toolset the registry no longer serves (undefined: it serves it, or never had one of that name). `held`: the session has it active,
   * so it is told how to put it down. A broken file's errors: only to whom the injected layers (not `sessions.deny`) tell of a broken tool, an admin (review Z3, 3).
   */
  goneToolset(name: string, held: boolean, principal?: string): string | undefined {
    return this.registryView().toolset(name) ? undefined : this.gone.message(this.options.registry().index, name, held, mayKnowBroken(this.options.rights ?? [], this.options.registry().index, undefined, principal)(name));
  }

  /** The toolsets the session holds that the registry no longer serves, each with what the session is told of it. */
  goneHeld(state: SessionState): Array<{ name: string; message: string }> {
    return state.toolsets.flatMap(({ name }) => [this.goneToolset(name, true, state.principal)].filter((message) => message !== undefined).map((message) => ({ name, message })));
  }

  /** The index seen through its toolsets, built once per index. */
  registryView(): RegistryView {
    return this.cacheFor(this.options.registry()).registry;
  }

  /** What every tool is for the session (without one: for a caller with no session, acting for `principal`), expired toolsets dropped first. */
  view(state?: SessionState, principal?: string): SessionView {
    if (state && expireSession(state, this.clock())) this.persist(state, false);
    return this.cacheFor(this.options.registry()).viewOf(state, principal);
  }

  /** `GET /v1/sessions/:id/tools/:name`: the state of one tool (name or alias) and why. */
  explain(state: SessionState | undefined, name: string): Explanation {
    const registry = this.registryView();
    const tool = registry.resolve(name);
    if (!tool) return { found: false, tool: name, reason: `no tool '${name}' in the registry at ${registry.index.commit}` };
    if (state) expireSession(state, this.clock());
    const visibility = this.decide(registry, state, tool, name);
    return { found: true, tool: tool.name, called_as: name, ...visibility };
  }

  /** The `toolset` meta-tool. */
  toolset(state: SessionState, request: ToolsetRequest): MetaAnswer {
    const registry = this.registryView();
    expireSession(state, this.clock());
    const answer = toolsetTool(request, { registry, state, now: this.clock(), ttlMs: this.config.toolsetTtlMs, viewAfter: () => this.view(state), skillIndex: () => this.skillIndex(state), usable: this.usableToolsets(state), forbiddenReason: (toolset) => this.forbiddenReason(registry, state, toolset), gone: (name, held) => this.goneToolset(name, held, state.principal) });
    this.persist(state);
    return answer;
  }

  /** `tool_load {name}`: a reserved tool, or every reserved tool of a group, visible for this turn; the active toolsets stay as they are. */
  load(state: SessionState, name: string): MetaAnswer {
    const registry = this.registryView();
    const { group, tools } = registry.loadable(name);
    if (tools.length === 0) {
      const current = this.options.registry();
      return loadRefusal(name, {
        registry, index: current.index, matcher: current.matcher, ...(current.removed ? { removed: current.removed } : {}), usable: this.usableToolsets(state), mayKnowBroken: mayKnowBroken(this.rights, current.index, state.id, state.principal),
        gone: (toolset, held) => this.goneToolset(toolset, held, state.principal),
        forbiddenReason: (toolset) => this.forbiddenReason(registry, state, toolset),
        holds: (toolset) => state.toolsets.some((active) => active.name.toLowerCase() === toolset.toLowerCase()),
        mayOffer: (names) => this.mayOffer(state, names.map((near) => ({ name: near }))).map((near) => near.name),
      });
    }
    expireSession(state, this.clock());
    // a group loads its listed tools: an unlisted one is reached by its exact name, never named by a group (review P, P6)
    const listed = group === undefined ? tools : tools.filter((tool) => !tool.unlisted);
    // a group of only unlisted tools has nothing to load, and its refusal names none of them (review Q, Q7)
    if (listed.length === 0) return refusal('TOOL_NOT_FOUND', `group '${name}' has no tool to load; tool_find finds tools by what they do`);
    const allowed = listed.filter((tool) => this.decide(registry, state, tool, tool.name).state !== 'forbidden');
    if (allowed.length === 0) return refusal('TOOL_FORBIDDEN', this.decide(registry, state, listed[0]!, listed[0]!.name).reason);
    const added = loadTools(state, allowed.map((tool) => tool.name), this.clock() + this.config.toolsetTtlMs);
    this.persist(state);
    const view = this.view(state);
    const lines = allowed.filter((tool) => view.isVisible(tool.name)).map((tool) => `- ${signatureOf(tool, tool.name, view.markersOf(tool))}`);
    const message = [`loaded for this turn (the active toolsets are unchanged): ${allowed.map((tool) => tool.name).join(', ')}`, ...lines].join('\n');
    return { ok: true, message, data: { loaded: allowed.map((tool) => tool.name), tools: lines.map((line) => line.slice(2)) }, changed: added.length > 0 };
  }

  /** `tool_find {intent}`: the matcher's candidates the session (or, without one, `principal`) may use, loaded for this turn at once (seed 001). */
  find(state: SessionState | undefined, answer: MatchResult, principal?: string): { result: MatchResult; changed: boolean } {
    const registry = this.registryView();
    if (state) expireSession(state, this.clock());
    // a broken tool is named only to whom every rights layer may tell of it, judged by its name alone (review Z2, Z2-3)
    const result = withOfferedBroken(answer, mayKnowBroken(this.rights, registry.index, state?.id, state?.principal ?? principal));
    // the near misses of found: false are offered too: a tool withheld from the caller is not named to it
    if (!result.found) return { result: { ...result, near: this.offered(registry, state, result.near, principal) }, changed: false };
    const candidates = this.offered(registry, state, result.candidates, principal);
    if (candidates.length === 0) return { result: { found: false, suggestion: NO_TOOL_YOU_MAY_USE, near: [], ...(result.incomplete === undefined ? {} : { incomplete: result.incomplete }) }, changed: false };
    let changed = false;
    if (state && result.confidence !== 'low') { // a low answer's candidates match only part of the request: offered, not loaded (review U11-2)
      changed = loadTools(state, candidates.map((candidate) => candidate.name), this.clock() + this.config.toolsetTtlMs).length > 0;
      this.persist(state);
    }
    return { result: { ...result, candidates }, changed };
  }

  /**
   * The tools of `named` (near misses of an unknown name, say) the session (or, without one, `principal`) may be
   * offered: visible or reserved, as for `tool_find`'s candidates; forbidden and hidden ones are left out.
   */
  mayOffer<T extends { name: string }>(state: SessionState | undefined, named: readonly T[], principal?: string): T[] {
    if (named.length === 0) return [];
    const registry = this.registryView();
    if (state) expireSession(state, this.clock());
    return this.offered(registry, state, named, principal);
  }

  /** `read_skill {name}`: the skill's body. */
  readSkill(name: string): MetaAnswer {
    const registry = this.registryView();
    const skill = registry.skill(name);
    if (!skill) {
      const available = registry.index.skills.map((entry) => entry.name);
      return refusal('SKILL_NOT_FOUND', `no skill ${name}${didYouMean(name, available)}; available: ${available.join(', ') || 'none'}`);
    }
    return { ok: true, message: skill.body, data: { name: skill.name, description: skill.description, ...(skill.toolset ? { toolset: skill.toolset } : {}), body: skill.body }, changed: false };
  }

  /** The skill index of the session: every skill but those whose toolset is active, or holds no tool its principal may use (seed 000 §6). */
  skillIndex(state?: SessionState): ToolIndex['skills'] {
    const registry = this.registryView();
    const active = new Set(state?.toolsets.map((toolset) => toolset.name));
    const usable = this.usableToolsets(state);
    return registry.index.skills.filter((skill) => {
      if (skill.toolset === undefined) return true;
      const toolset = registry.toolset(skill.toolset);
      return !active.has(skill.toolset) && (toolset === undefined || usable.has(toolset.name));
    });
  }

  /** The toolsets holding a tool the session's principal (without a session: `principal`) may use. */
  usableToolsets(state?: SessionState, principal?: string): ReadonlySet<string> {
    return this.cacheFor(this.options.registry()).usableToolsets(state?.principal ?? principal);
  }

  // names the toolset's tools and the rights layer's reason for the first: the fix is the principal's list, not the toolset
  private forbiddenReason(registry: RegistryView, state: SessionState | undefined, toolset: ToolsetDefinition, principal?: string): string {
    const members = registry.membersOf(toolset.name) ?? [];
    const first = members.map((name) => registry.tool(name)).find((tool) => tool !== undefined);
    const why = first ? ` (${this.decide(registry, state, first, first.name, principal).reason})` : '';
    const named = members.length ? `: ${members.slice(0, 5).join(', ')}${members.length > 5 ? ', …' : ''}` : '';
    return `toolset '${toolset.name}' holds no tool you may call${named}${why}`;
  }

  /** The budgeted prompt block of the session (deterministic for the same state); drops are logged as a warning. */
  prompt(state: SessionState | undefined, options: PromptOptions): PromptBlock {
    const view = this.view(state);
    const registry = this.registryView();
    const gone = state ? this.goneHeld(state) : [];
    const block = promptBlockOf(registry, view, state, this.skillIndex(state), this.config.groupDescriptions, options, offeredToolsets(registry, this.usableToolsets(state)), new Map(gone.map((entry) => [entry.name, entry.message])));
    if (block.dropped.lines > 0 || block.dropped.descriptions > 0) {
      this.options.logger?.warn({ session: state?.id, budget: block.budget.chars, descriptions_shortened: block.dropped.descriptions, description_chars_cut: block.dropped.description_chars, lines_dropped: block.dropped.lines }, 'prompt block over budget: shortened');
    }
    return block;
  }

  /** The turn ended (HTTP kernels say so): turn-scoped toolsets and loaded tools go. */
  endTurn(state: SessionState): boolean {
    const changed = endTurn(state);
    this.persist(state);
    return changed;
  }

  /**
   * What a call of `name` comes to for the session: run it (visible, hidden, or any allowed tool through
   * `tool_call`), refuse it (forbidden), or enable its toolset instead (reserved, seed 000 §7). Without a
   * session, `principal` is who calls.
   */
  decideCall(state: SessionState | undefined, name: string, via: 'direct' | 'tool_call' = 'direct', principal?: string): CallDecision {
    const registry = this.registryView();
    const tool = registry.resolve(name);
    if (!tool) return { kind: 'unknown' };
    if (state) expireSession(state, this.clock());
    const visibility = this.decide(registry, state, tool, name, principal);
    if (visibility.state === 'forbidden') return { kind: 'refuse', tool, visibility };
    if (visibility.state !== 'reserved' || via === 'tool_call' || !state) return { kind: 'run', tool, visibility };
    return this.substitute(registry, state, tool);
  }

  /** A call of `tool` ran in the session: the toolsets holding it, and the tool if loaded, live another TTL. */
  afterCall(state: SessionState, tool: string): void {
    const registry = this.registryView();
    const holders = new Set(state.toolsets.filter((toolset) => registry.holds(toolset.name, tool)).map((toolset) => toolset.name));
    touchAfterCall(state, tool, holders, this.clock() + this.config.toolsetTtlMs);
    this.persist(state);
  }

  private substitute(registry: RegistryView, state: SessionState, tool: ToolDefinition): CallDecision {
    const [name] = registry.toolsetsNaming(tool.name);
    const toolset = name === undefined ? undefined : registry.toolset(name);
    let head: string;
    let tools: string[];
    if (toolset) {
      this.toolset(state, { action: 'enable', name: toolset.name });
      tools = registryLines(toolset, { registry, viewAfter: () => this.view(state) });
      head = `toolset '${toolset.name}' is now active.`;
    } else {
      loadTools(state, [tool.name], this.clock() + this.config.toolsetTtlMs);
      this.persist(state);
      tools = [signatureOf(tool, tool.name, this.view(state).markersOf(tool))];
      head = `'${tool.name}' is now loaded for this turn.`;
    }
    const message = [
      head,
      'Tools:',
      ...tools.map((line) => `- ${line}`),
      `The call to '${tool.name}' has NOT run yet: call '${tool.name}' again with its arguments to run it.`,
    ].join('\n');
    return { kind: 'substitute', tool, toolset: toolset?.name ?? null, tools, message };
  }

  private offered<T extends { name: string }>(registry: RegistryView, state: SessionState | undefined, named: readonly T[], principal?: string): T[] {
    return named.filter((entry) => {
      const tool = registry.tool(entry.name);
      const decided = tool ? this.decide(registry, state, tool, tool.name, principal).state : 'forbidden';
      return decided === 'visible' || decided === 'reserved';
    });
  }

  private decide(registry: RegistryView, state: SessionState | undefined, tool: ToolDefinition, calledAs: string, principal?: string): Visibility {
    const acting = state?.principal ?? principal;
    return decideVisibility(tool, calledAs, {
      registry,
      rights: this.rights,
      subject: { ...(state ? { session: state.id } : {}), ...(acting === undefined ? {} : { principal: acting }) },
      attention: { toolsets: state?.toolsets ?? [], loaded: new Set(state?.loaded.map((entry) => entry.name)) },
    });
  }

  private cacheFor(current: SessionRegistry): ViewCache {
    let cache = this.caches.get(current.index);
    if (!cache) {
      const resolve = (name: string): ToolDefinition | undefined => {
        const found = current.matcher.lookup(name);
        return found.found ? found.tool : undefined;
      };
      cache = new ViewCache(new RegistryView(current.index, resolve, this.config.onDemand), this.rights);
      this.caches.set(current.index, cache);
      // said once per index: a deny list entry that matches nothing would let through what it was written to stop
      const unmatched = unmatchedDenyEntries(this.config.deny, current.index);
      if (unmatched.length > 0) this.options.logger?.warn({ entries: unmatched, commit: current.index.commit }, 'sessions.deny names no tool, alias or group of this registry: those entries deny nothing');
      for (const layer of this.rights) for (const warning of layer.warnings?.(current.index) ?? []) this.options.logger?.warn({ commit: current.index.commit }, warning);
    }
    return cache;
  }
}
