import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { makeToolsSteps, runLettingGo, type MatchResult, type Receipt, type ToolDefinition, type ToolIndex } from '../../core/index.js';
import { EventHub } from '../../events/index.js';
import { redactValue } from '../../executors/index.js';
import type { McpServerPool } from '../../mcp-servers/index.js';
import { createModelStage, matchWithModel, searchIndexFiles, type MatchContext, type Matcher, type ModelStage } from '../../matcher/index.js';
import { Scanner, warmUpParser, type PushHint } from '../../scanner/index.js';
import { accessRights, API_TOKEN_PRINCIPAL, ApprovalDesk, decidePolicy, LOCAL_PRINCIPAL, Principals, type ApprovalAnswer, type DecideOptions, type Principal } from '../../policy/index.js';
import { SessionManager, type SessionState } from '../../sessions/index.js';
import { openStore, type ChainReport, type ReceiptQuery, type Store, type StoreHealth } from '../../store/index.js';
import type { SandboxStatus } from '../../sandbox/index.js';
import { repositoryOptions, type GatewayConfig } from '../config/index.js';
import { chooseDeadline } from './call-deadline.js';
import type { CallOutcome } from './call-outcome.js';
import { ExecutionTargets } from './execution-targets.js';
import { eventObserver } from './gateway-events.js';
import { sessionStep } from './session-step.js';
import { sessionStoreOf } from './session-store-of.js';
import { tooDeepParams } from './unknown-tool.js';
import { lookUpCall } from './call-lookup.js';
import { RecentTools } from './recent-tools.js';
import { usageStep } from './usage-step.js';
import { RegistrySwap, type Registry, type RescanResult } from './registry-swap.js';
import { MATCH_WAIT_MS, MatchingReadiness } from './matching-readiness.js';
import { ReceiptKeeper, storeDown } from './receipt-keeper.js';
import { LaterWrites } from './later-writes.js';
import type { CallAsked, CallOptions, CallRequest, CallStep, GatewayObserver, GatewayOptions, MatchOptions } from './gateway-types.js';

export type { Registry, RescanResult };
export type { CallAsked, CallOptions, CallRequest, CallStep, GatewayObserver, GatewayOptions, MatchOptions } from './gateway-types.js';

/** The composition root's service: the registry, the call path (steps → lookup → confirmation → execute → receipt → observers), sessions, rescans. */
export class Gateway {
  /** agent sessions: toolsets, visibility, the meta-tools and the prompt block over this gateway's registry */
  readonly sessions: SessionManager;
  /** the event stream: this process's calls, rejections, confirmations and scans go into the store's log; servers `start` it to deliver */
  readonly events: EventHub;
  /** the configured principals (and `api_token` as `admin`): who requests act for */
  readonly principals: Principals;
  /** approval requests: filed by the policy step, decided by approvers, callers (confirm), MCP clients or the clock */
  readonly approvals: ApprovalDesk<Registry>;
  private readonly registries: RegistrySwap;
  private readonly steps: CallStep[] = [];
  private readonly observers: GatewayObserver[];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly recentTools = new RecentTools();
  private readonly later: LaterWrites;
  private readonly modelStage: ModelStage | undefined;
  private readonly matchingReadiness: MatchingReadiness;
  private readonly keeper: ReceiptKeeper;
  /** tells this instance's messages on the store's bus from the others' */
  readonly instanceId = randomUUID();

  private constructor(
    readonly config: GatewayConfig,
    private readonly scanner: Scanner,
    index: ToolIndex,
    readonly store: Store,
    private readonly targets: ExecutionTargets,
    readonly logger: Logger | undefined,
    observers: GatewayObserver[],
    clock?: () => number,
  ) {
    this.observers = observers;
    this.keeper = new ReceiptKeeper(targets, store, logger, () => this.registries.current);
    this.later = new LaterWrites(store, targets, logger);
    // search indexes are kept between runs beside the scans, so a restart loads its own instead of building it
    this.registries = new RegistrySwap(scanner, index, searchIndexFiles(join(config.cacheDir, 'search')), logger, (result) => {
      for (const observer of this.observers) observer.scanned?.(result);
    });
    // once matching has been prepared here (servers), each new registry is prepared before it is swapped in, so matches never wait after a rescan
    this.registries.beforeSwap(async (next, previous) => {
      if (this.matchingReadiness.started(previous.matcher)) await this.prepareMatching(next.matcher).catch(() => undefined);
    });
    this.matchingReadiness = new MatchingReadiness(() => this.registries.current, logger);
    this.events = new EventHub({
      log: store.events,
      // other instances hear of new events at once over PostgreSQL; on SQLite the poll finds what other processes appended
      ...(store.kind === 'postgres' ? { bus: store.bus } : {}),
      pollMs: store.kind === 'postgres' ? 1000 : 200,
      origin: this.instanceId,
      ...(config.events.backlog !== undefined ? { backlog: config.events.backlog } : {}),
      onError: (error, what) => logger?.warn({ err: error.message }, what),
    });
    this.observers.push(eventObserver(this.events, index));
    this.principals = new Principals(config.principals);
    this.approvals = new ApprovalDesk({
      registry: () => this.registries.current,
      store,
      ttlMs: config.confirmationTtlMs,
      deadline: (tool, requestedMs) => chooseDeadline(tool, requestedMs, config.maxCallTimeoutMs),
      run: (registry, tool, params, approval, timeoutMs, who) => this.keeper.run(registry, tool, params, approval, timeoutMs, who),
      unrun: (call) => this.keeper.storeUnrun(call),
      finished: (outcome) => this.report(outcome, 0, { tool: outcome.kind === 'receipt' ? outcome.receipt.tool : undefined, ...(outcome.kind === 'receipt' && outcome.receipt.caller ? { caller: outcome.receipt.caller } : {}), ...(outcome.kind === 'receipt' && outcome.receipt.session ? { session: outcome.receipt.session } : {}) }),
    });
    // the rights layer of the one visibility function: principals, tools' access blocks, policies' access rules
    this.sessions = new SessionManager({ registry: () => this.registries.current, config: config.sessions, rights: [accessRights(this.principals)], ...sessionStoreOf(config, store, clock, logger), ...(clock ? { clock } : {}), ...(logger ? { logger } : {}) });
    // visibility is the first step: a forbidden tool is refused and a reserved one substituted before anything else looks at the call
    this.use(sessionStep(this.sessions, (name, params) => this.registries.current.matcher.lookup(name, tooDeepParams(params) ? {} : (params ?? {}))));
    // then what a session reaches for is remembered: its recent tools inform its next matches, and the pair is stored
    this.use(usageStep(this.recentTools, (event) => this.later.usage(event), () => this.registries.current));
    const onFailure = (message: string): void => this.logger?.warn({ model: config.matcherModel?.model, err: message }, 'matcher model failed; answering from the words alone');
    this.modelStage = config.matcherModel === undefined ? undefined : createModelStage(config.matcherModel, { onFailure });
  }

  /** Scans the configured repository and opens the store; throws `ScanError` if nothing can be served. */
  static async open(options: GatewayOptions): Promise<Gateway> {
    const { config } = options;
    const scanner = new Scanner(repositoryOptions(config));
    const targets = new ExecutionTargets(config, options.logger);
    // the sandbox probe waits on child processes: begun now, it runs while the scan reads the cache; `warmUp` awaits it
    if (options.probeSandbox) void targets.sandboxed().catch(() => undefined);
    let index: ToolIndex;
    try {
      index = await scanner.scan();
    } catch (error) {
      await targets.close();
      throw error;
    }
    const store = options.store ?? (await openConfiguredStore(config));
    const observers = [...(options.observer ? [options.observer] : []), ...(options.observers ?? [])];
    return new Gateway(config, scanner, index, store, targets, options.logger, observers, options.clock);
  }

  /** The registry calls start on now. */
  get registry(): Registry {
    return this.registries.current;
  }

  /** Adds a step to the call path, after the ones already there. */
  use(step: CallStep): void {
    this.steps.push(step);
  }

  /** Subscribes an observer to calls, matches and scans; returns the unsubscribe function. */
  observe(observer: GatewayObserver): () => void {
    this.observers.push(observer);
    return () => {
      const at = this.observers.indexOf(observer);
      if (at >= 0) this.observers.splice(at, 1);
    };
  }

  /** Tool definitions of the current index. */
  tools(): ToolDefinition[] {
    return this.registries.current.index.tools;
  }

  /**
   * An intent's 1-3 candidates (only tools the caller may use) or `found: false`; never executes
   * anything. With `matcher.model` configured, a request the words match weakly or not at all is also
   * put to the model.
   */
  async match(intent: string, options: MatchOptions = {}): Promise<MatchResult> {
    const start = performance.now();
    const { session, limit, context } = options;
    const caller = options.caller ?? session?.principal;
    const recent = session === undefined ? [] : this.recentTools.of(session.id);
    const matchContext: MatchContext | undefined = recent.length > 0 ? { ...context, recent } : context;
    const registry = await this.matchingReadiness.ready(options.waitMs ?? MATCH_WAIT_MS);
    // a secret pasted into a request goes neither to the model endpoint nor into the stored usage events
    const asked = redactValue(intent, this.targets.configuredSecrets());
    const answer = await matchWithModel(registry.matcher, this.modelStage, asked, {
      ...(limit === undefined ? {} : { limit }),
      ...(matchContext ? { context: matchContext } : {}),
    });
    // a forbidden or unlisted tool is never offered, with or without a session (the same lattice as tools/list)
    const result = this.sessions.find(undefined, answer, caller).result;
    for (const observer of this.observers) observer.matched?.((performance.now() - start) / 1000);
    if (session !== undefined) {
      const tools = result.found ? result.candidates.map((candidate) => candidate.name) : [];
      this.later.usage({ kind: 'match', session: session.id, at: new Date().toISOString(), commit: registry.index.commit, intent: asked, tools, outcome: result.found ? result.confidence : 'none' });
    }
    return result;
  }

  /** `{tool, params}`: through the call steps, then runs it (or asks for confirmation first) and stores its receipt before answering. */
  call(tool: string, params: unknown, options: CallOptions = {}): Promise<CallOutcome> {
    const registry = this.registries.current;
    const last = (request: CallRequest): Promise<CallOutcome> => this.callOn(registry, request);
    const chain = this.steps.reduceRight<(request: CallRequest) => Promise<CallOutcome>>((next, step) => (request) => step(request, next), last);
    // a call in a session acts for the session's principal
    const caller = options.caller ?? options.session?.principal;
    const outcome = chain({ tool, params, ...options, ...(caller === undefined ? {} : { caller }) });
    // a call refused before it could run leaves a record a person can read (hldp receipts --rejected)
    void outcome.then((done) => this.later.rejection(done, { tool, params, caller: caller ?? null, session: options.session?.id ?? null }), () => undefined);
    return this.track(outcome, { tool, ...asker(caller, options.session) });
  }

  /** Runs the call a confirmation token stands for, exactly as it was asked (under this request's deadline, if it names one). */
  confirm(token: string, options: Pick<CallOptions, 'signal' | 'timeoutMs' | 'caller' | 'session' | 'onProgress'> = {}): Promise<CallOutcome> {
    const caller = options.caller ?? options.session?.principal;
    const confirming = this.keeper.fromStore(() => this.approvals.confirm(token, { ...(caller === undefined ? {} : { caller }), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) }));
    return this.track(confirming, asker(caller, options.session));
  }

  /** An approver (or the caller, where its rule allows) approves or denies a pending request; approving runs exactly its call, once. */
  decide(id: string, principal: Principal, verdict: 'approve' | 'deny', options: DecideOptions = {}): Promise<ApprovalAnswer> {
    return this.hold(this.approvals.decide(id, principal, verdict, options).catch(storeDown));
  }

  /** The caller (or an admin) withdraws a pending request: a `CANCELLED` receipt, nothing ran. */
  cancelApproval(id: string, principal: Principal, reason: string | null): Promise<ApprovalAnswer> {
    return this.hold(this.approvals.cancel(id, principal, reason).catch(storeDown));
  }

  /** The principal of that name (absent: `local`); one no longer configured has no roles. */
  principal(name: string | undefined): Principal {
    return this.principals.get(name ?? LOCAL_PRINCIPAL.name) ?? { name: name ?? LOCAL_PRINCIPAL.name, roles: new Set() };
  }

  /** Reads stored receipts, newest first. */
  receipts(query: ReceiptQuery = {}): Promise<Receipt[]> {
    return this.store.receipts.list(query);
  }

  /** Walks the receipt chain and names the first broken link, if any. */
  verifyReceipts(): Promise<ChainReport> {
    return this.store.receipts.verify();
  }

  /** Whether the store answers now (a bounded round trip). */
  storeHealth(): Promise<StoreHealth> {
    return this.store.health();
  }

  /**
   * Scans again; a new commit swaps in a new index and matcher atomically (calls in flight keep theirs). Rescans run
   * one after another. `pushed`: what a signed push webhook said, so that a remote is fetched beside its head check.
   */
  rescan(pushed?: PushHint): Promise<RescanResult> {
    return this.registries.rescan(pushed);
  }

  /** Runs `prepare` on every new registry before it is swapped in; returns the unsubscribe function. */
  beforeSwap(prepare: (registry: Registry, previous: Registry) => Promise<void>): () => void {
    return this.registries.beforeSwap(prepare);
  }

  /** Calls `listener` after every swap to a new commit; returns the unsubscribe function. */
  onIndexChange(listener: (registry: Registry) => void): () => void {
    return this.registries.onIndexChange(listener);
  }

  /** The last rescan's failure, if the index is being served in spite of it. */
  get scanError(): { message: string; at: string } | undefined {
    return this.registries.scanError;
  }

  /** The configured MCP servers `mcp` tools call: their state, and `tools/list` for drafting definitions. */
  get mcpServers(): McpServerPool {
    return this.targets.mcpServers;
  }

  /** Calls running now. */
  get callsInFlight(): number {
    return this.inFlight.size;
  }

  /**
   * For servers: starts the embedded gatekeeper and probes the sandbox ahead of the first request. Intent matching
   * (the search index, its calibration) and the parser's checks are not prepared here: a server starts
   * `prepareInBackground` once it listens, so calls by name, listings and health are answered meanwhile, and a match
   * waits for it.
   */
  async warmUp(): Promise<void> {
    // unattended approval requests still expire, each with its EXPIRED receipt
    this.approvals.start((error) => this.logger?.warn({ err: error.message }, 'could not expire approval requests'));
    // probed at start, so that what the sandbox cannot enforce is said before the first call
    await this.targets.sandboxed();
    if (this.targets.embedsGatekeeper) await this.targets.startEmbedded();
  }

  /**
   * For servers, once they listen: prepares intent matching, then compiles what parsing a definition compiles on
   * first use (the TOOL.hdlp schema, params schemas' meta-schema, RE2), so that a later rescan does not compile it
   * while requests wait, and the first requests by name do not wait for it either.
   */
  prepareInBackground(): void {
    const warmUpParsing = (): void => {
      try {
        warmUpParser();
      } catch (error) {
        this.logger?.warn({ err: (error as Error).message }, 'could not compile the parser\'s checks ahead of a rescan');
      }
    };
    // the matcher reads every definition at once: made first a slice at a time, a request by name waits for none of them
    void runLettingGo(makeToolsSteps(this.registries.current.index))
      // a definition that cannot be read fails intent matching as it would have, said in the log
      .then(() => this.prepareMatching(), () => this.prepareMatching())
      .then(warmUpParsing, warmUpParsing);
  }

  /**
   * Prepares intent matching over the current registry (reads its search index kept on disk, or builds it, then
   * measures its confidence cut), a slice at a time; resolves with the matcher once it is ready. Started once per
   * registry; a rescan's new registry is prepared before it is swapped in.
   */
  prepareMatching(matcher: Matcher = this.registries.current.matcher): Promise<Matcher> {
    return this.matchingReadiness.prepare(matcher);
  }

  /** Intent matching over the current registry: `ready`, `loading` (its search index is read or built) or `failed` (the next match tries again). */
  get matching(): 'ready' | 'loading' | 'failed' {
    return this.matchingReadiness.state;
  }

  /** What holds for local tools on this host (bubblewrap, containment, limits), once probed: at warm-up or the first call. */
  get sandbox(): SandboxStatus | undefined {
    return this.targets.sandboxStatus;
  }

  /**
   * Where `hldp-api` tools go when no `apis.default` is configured: serve points it at its own API,
   * so the starter tool `http-request` works out of the box (e.g. GET /healthz). With principals beyond
   * `api_token`, it goes without a token: a tool must not read the API as admin for an agent that is not one.
   */
  useSelfApi(url: string): void {
    this.keeper.servingAt = url;
    const onlyAdmin = this.config.principals.every((principal) => principal.name === API_TOKEN_PRINCIPAL);
    this.targets.useSelfApi({ url, ...(this.config.apiToken && onlyAdmin ? { token: this.config.apiToken } : {}) });
  }

  /** Lets calls in flight finish (their receipts stored), then stops the embedded gatekeeper and closes the store. */
  async close(): Promise<void> {
    this.approvals.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.later.settled();
    // the events of the last calls reach the log before the store closes
    await this.events.stop();
    await this.scanner.flush();
    // the search index a rescan updated is kept for the next start
    this.registries.current.matcher.persist();
    await this.targets.close();
    await this.store.close();
  }

  /** Tells the observers what a call (or a decision on one) came to. */
  private report(outcome: CallOutcome, seconds: number, asked?: CallAsked): void {
    for (const observer of this.observers) observer.called?.(outcome, seconds, asked);
  }

  /** Keeps track of work that writes to the store, so that `close` waits for it. */
  hold<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  private track(work: Promise<CallOutcome>, asked?: CallAsked): Promise<CallOutcome> {
    const start = performance.now();
    this.inFlight.add(work);
    return work.then(
      (outcome) => {
        this.inFlight.delete(work);
        this.report(outcome, (performance.now() - start) / 1000, asked);
        return outcome;
      },
      (error: unknown) => {
        this.inFlight.delete(work);
        throw error;
      },
    );
  }

  private async callOn(registry: Registry, request: CallRequest): Promise<CallOutcome> {
    const lookup = lookUpCall(registry, request.tool, request.params);
    if (!lookup.ok) return lookup.outcome;
    const { tool, data } = lookup;
    const deadline = chooseDeadline(tool, request.timeoutMs, this.config.maxCallTimeoutMs);
    if (!deadline.ok) return deadline.outcome;
    const caller = this.principal(request.caller);
    const decision = decidePolicy(registry.index, tool, data, caller);
    const session = request.session?.id ?? null;
    switch (decision.kind) {
      case 'allow':
        return { kind: 'receipt', receipt: await this.keeper.run(registry, tool, data, null, deadline.timeoutMs, { ...request, session }) };
      case 'deny':
        return {
          kind: 'receipt',
          receipt: await this.keeper.storeUnrun({
            tool: tool.name, method: tool.method, executor: tool.executor, params: data, commit: registry.index.commit, code: 'DENIED',
            error: `${tool.name}: denied, nothing ran: ${decision.reason}`, caller: caller.name, session, approval: null, timeoutMs: deadline.timeoutMs,
          }),
        };
      case 'approve':
        return this.keeper.fromStore(() => this.approvals.request(registry, tool, data, decision, caller.name, session, deadline.timeoutMs));
    }
  }
}

/** The configured store: PostgreSQL when `store.url` is set, else the SQLite file. */
export function openConfiguredStore(config: GatewayConfig): Promise<Store> {
  return openStore({ url: config.store.url, sqlitePath: config.receiptsDb, poolMax: config.store.poolMax });
}

/** Who asked for a call, for its events: the principal and the session, where known. */
function asker(caller: string | undefined, session: SessionState | undefined): CallAsked {
  return { ...(caller === undefined ? {} : { caller }), ...(session === undefined ? {} : { session: session.id }) };
}
