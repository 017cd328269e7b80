import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { makeToolsSteps, runLettingGo, type MatchResult, type ProgressUpdate, type Receipt, type ReceiptApproval, type ReceiptSource, type ToolDefinition, type ToolIndex, type UsageEvent } from '../../core/index.js';
import { EventHub } from '../../events/index.js';
import { execute, redactValue, secretsOf } from '../../executors/index.js';
import type { McpServerPool } from '../../mcp-servers/index.js';
import { compactSchema, createModelStage, matchWithModel, searchIndexFiles, type MatchContext, type Matcher, type ModelStage } from '../../matcher/index.js';
import { Scanner, warmUpParser } from '../../scanner/index.js';
import { accessRights, API_TOKEN_PRINCIPAL, ApprovalDesk, decidePolicy, LOCAL_PRINCIPAL, Principals, unrunReceipt, type ApprovalAnswer, type DecideOptions, type Principal, type UnrunCall } from '../../policy/index.js';
import { SessionManager, type SessionState } from '../../sessions/index.js';
import { openStore, type ChainReport, type ReceiptQuery, type Store, type StoreHealth } from '../../store/index.js';
import type { SandboxStatus } from '../../sandbox/index.js';
import { repositoryOptions, type GatewayConfig } from '../config/index.js';
import { chooseDeadline } from './call-deadline.js';
import type { CallOutcome } from './call-outcome.js';
import { ExecutionTargets } from './execution-targets.js';
import { eventObserver } from './gateway-events.js';
import { rejectionOf, type AskedCall } from './rejection-step.js';
import { sessionStep } from './session-step.js';
import { sessionStoreOf } from './session-store-of.js';
import { tooDeepParams, unknownToolOutcome } from './unknown-tool.js';
import { RecentTools } from './recent-tools.js';
import { usageStep } from './usage-step.js';
import { RegistrySwap, type Registry, type RescanResult } from './registry-swap.js';
import { MATCH_WAIT_MS, MatchingReadiness } from './matching-readiness.js';

export type { Registry, RescanResult };

/**
 * How to match an intent: at most `limit` candidates; `context` (tools, group) moves the tools it
 * points at up; `session` adds the tools that session called lately, and records the match.
 */
export interface MatchOptions {
  limit?: number;
  context?: Omit<MatchContext, 'recent'>;
  /** the agent session asking (MCP: its connection's; HTTP: `X-HLDP-Session`), if any */
  session?: SessionState;
  /** the principal asking (with a session, the session's): only tools it may use are offered */
  caller?: string;
  /** how long to wait for intent matching while it is being prepared (start, default {@link MATCH_WAIT_MS}) before `SearchIndexLoadingError` */
  waitMs?: number;
}

/** What a gateway reports as it works (metrics subscribe here, so CLI, HTTP and MCP calls all count). */
export interface GatewayObserver {
  /** `asked`: the tool name as the caller gave it (absent for a confirmation), who called, and in which session */
  called?(outcome: CallOutcome, seconds: number, asked?: CallAsked): void;
  matched?(seconds: number): void;
  scanned?(result: RescanResult | { error: Error }): void;
}

/** What observers learn of a call besides its outcome. */
export interface CallAsked {
  tool?: string;
  caller?: string;
  session?: string;
}

/** One call on its way down the call path. */
export interface CallRequest {
  tool: string;
  params: unknown;
  signal?: AbortSignal;
  /** the call's own deadline in ms, within the tool's `max_timeout_ms`; absent: the tool's `timeout_ms` */
  timeoutMs?: number;
  /** where the running call's progress goes (an MCP client's progress token), if its executor reports any */
  onProgress?: (update: ProgressUpdate) => void;
  /** the agent session the call is made in, if any */
  session?: SessionState;
  /** the principal the call is made for (with a session, the session's); absent: nobody, refused once credentials are configured */
  caller?: string;
  /** `tool_call` runs any tool the caller may run; a direct call of a reserved tool enables its toolset instead */
  via?: 'direct' | 'tool_call';
}

/** How one call or confirmation runs: what a surface passes besides the tool and its params. */
export type CallOptions = Omit<CallRequest, 'tool' | 'params'>;

/**
 * One step of the call path before execution (visibility; the policy, approval and event steps of later
 * work): it answers the call itself, or passes it on with `next`. Steps run in the order they were added.
 */
export type CallStep = (request: CallRequest, next: (request: CallRequest) => Promise<CallOutcome>) => Promise<CallOutcome>;

/** How to open a gateway; the store, logger, observers, session store and clock may be injected (tests, embedding, metrics). */
export interface GatewayOptions {
  config: GatewayConfig;
  logger?: Logger;
  store?: Store;
  observer?: GatewayObserver;
  /** more observers: metrics, events and anything else subscribe side by side */
  observers?: GatewayObserver[];
  /** the sessions' clock (tests move time with it) */
  clock?: () => number;
  /** probe the sandbox while the repository is scanned (servers, whose `warmUp` awaits the probe), not on the first call */
  probeSandbox?: boolean;
}

/** The composition root's service: the registry, the call path (steps → lookup → confirmation → execute → receipt → observers), sessions, rescans. */
export class Gateway {
  /** agent sessions: toolsets, visibility, the meta-tools and the prompt block over this gateway's registry */
  readonly sessions: SessionManager;
  /** the HTTP address this gateway serves at, once it does (recorded in receipts) */
  private servingAt: string | undefined;
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
  private readonly usageWrites = new Set<Promise<void>>();
  private readonly modelStage: ModelStage | undefined;
  private readonly matchingReadiness: MatchingReadiness;
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
      run: (registry, tool, params, approval, timeoutMs, who) => this.run(registry, tool, params, approval, timeoutMs, who),
      unrun: (call) => this.storeUnrun(call),
      finished: (outcome) => this.report(outcome, 0, { tool: outcome.kind === 'receipt' ? outcome.receipt.tool : undefined, ...(outcome.kind === 'receipt' && outcome.receipt.caller ? { caller: outcome.receipt.caller } : {}), ...(outcome.kind === 'receipt' && outcome.receipt.session ? { session: outcome.receipt.session } : {}) }),
    });
    // the rights layer of the one visibility function: principals, tools' access blocks, policies' access rules
    this.sessions = new SessionManager({ registry: () => this.registries.current, config: config.sessions, rights: [accessRights(this.principals)], ...sessionStoreOf(config, store, clock, logger), ...(clock ? { clock } : {}), ...(logger ? { logger } : {}) });
    // visibility is the first step: a forbidden tool is refused and a reserved one substituted before anything else looks at the call
    this.use(sessionStep(this.sessions, (name, params) => this.registries.current.matcher.lookup(name, tooDeepParams(params) ? {} : (params ?? {}))));
    // then what a session reaches for is remembered: its recent tools inform its next matches, and the pair is stored
    this.use(usageStep(this.recentTools, (event) => this.recordUsage(event), () => this.registries.current));
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
      this.recordUsage({ kind: 'match', session: session.id, at: new Date().toISOString(), commit: registry.index.commit, intent: asked, tools, outcome: result.found ? result.confidence : 'none' });
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
    void outcome.then((done) => this.recordRejection(done, { tool, params, caller: caller ?? null, session: options.session?.id ?? null }), () => undefined);
    return this.track(outcome, { tool, ...asker(caller, options.session) });
  }

  /** Runs the call a confirmation token stands for, exactly as it was asked (under this request's deadline, if it names one). */
  confirm(token: string, options: Pick<CallOptions, 'signal' | 'timeoutMs' | 'caller' | 'session' | 'onProgress'> = {}): Promise<CallOutcome> {
    const caller = options.caller ?? options.session?.principal;
    const confirming = this.fromStore(() => this.approvals.confirm(token, { ...(caller === undefined ? {} : { caller }), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) }));
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

  /** Scans again; a new commit swaps in a new index and matcher atomically (calls in flight keep theirs). Rescans run one after another. */
  rescan(): Promise<RescanResult> {
    return this.registries.rescan();
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
    this.servingAt = url;
    const onlyAdmin = this.config.principals.every((principal) => principal.name === API_TOKEN_PRINCIPAL);
    this.targets.useSelfApi({ url, ...(this.config.apiToken && onlyAdmin ? { token: this.config.apiToken } : {}) });
  }

  /** Lets calls in flight finish (their receipts stored), then stops the embedded gatekeeper and closes the store. */
  async close(): Promise<void> {
    this.approvals.stop();
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.usageWrites]);
    // the events of the last calls reach the log before the store closes
    await this.events.stop();
    await this.scanner.flush();
    // the search index a rescan updated is kept for the next start
    this.registries.current.matcher.persist();
    await this.targets.close();
    await this.store.close();
  }

  // written after the answer: a usage event is for learning later, and must neither slow nor fail a call
  private recordUsage(event: UsageEvent): void {
    const write = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.store.usage.record(event))
      .catch((error: unknown) => {
        this.logger?.warn({ err: (error as Error).message, session: event.session }, 'could not record a usage event');
      })
      .finally(() => this.usageWrites.delete(write));
    this.usageWrites.add(write);
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

  // written after the answer, like a usage event: the record is for a person later, and must neither slow nor fail a call
  private recordRejection(outcome: CallOutcome, asked: AskedCall): void {
    const rejected = rejectionOf(outcome, asked);
    if (!rejected) return;
    const write = this.targets
      .context(false)
      .then((context) => {
        const secrets = secretsOf(context);
        return this.store.rejections.save({ ...rejected, params: redactValue(rejected.params, secrets), reason: redactValue(rejected.reason, secrets) });
      })
      .catch((error: unknown) => {
        this.logger?.warn({ err: (error as Error).message, tool: rejected.tool }, 'could not record a rejected call');
      })
      .finally(() => this.usageWrites.delete(write));
    this.usageWrites.add(write);
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
    const { tool: name, params } = request;
    // a value nested past the limit is never cloned or validated: both recurse, and would overflow the stack
    const tooDeep = tooDeepParams(params);
    const lookup = registry.matcher.lookup(name, tooDeep ? {} : (params ?? {}));
    if (!lookup.found) return unknownToolOutcome(registry.index, name, lookup.errorMessage, lookup.near);
    if (tooDeep) {
      return {
        kind: 'invalid_params', found: true, code: 'INVALID_PARAMS', tool: lookup.tool.name, error: `invalid params for '${lookup.tool.name}': ${tooDeep}`,
        problems: [{ param: '', message: tooDeep }], schema: compactSchema(lookup.tool.params_schema), params_schema: lookup.tool.params_schema,
      };
    }
    if (!lookup.valid) {
      return {
        kind: 'invalid_params', found: true, code: 'INVALID_PARAMS', tool: lookup.tool.name, error: lookup.errorMessage,
        problems: lookup.problems, schema: lookup.schema, params_schema: lookup.tool.params_schema,
      };
    }
    const { tool, data } = lookup;
    const deadline = chooseDeadline(tool, request.timeoutMs, this.config.maxCallTimeoutMs);
    if (!deadline.ok) return deadline.outcome;
    const caller = this.principal(request.caller);
    const decision = decidePolicy(registry.index, tool, data, caller);
    const session = request.session?.id ?? null;
    switch (decision.kind) {
      case 'allow':
        return { kind: 'receipt', receipt: await this.run(registry, tool, data, null, deadline.timeoutMs, { ...request, session }) };
      case 'deny':
        return {
          kind: 'receipt',
          receipt: await this.storeUnrun({
            tool: tool.name, method: tool.method, executor: tool.executor, params: data, commit: registry.index.commit, code: 'DENIED',
            error: `${tool.name}: denied, nothing ran: ${decision.reason}`, caller: caller.name, session, approval: null, timeoutMs: deadline.timeoutMs,
          }),
        };
      case 'approve':
        return this.fromStore(() => this.approvals.request(registry, tool, data, decision, caller.name, session, deadline.timeoutMs));
    }
  }

  /** A store operation, or the outcome that says the store cannot be reached (nothing ran). */
  private async fromStore<T>(operation: () => Promise<T>): Promise<T | Extract<CallOutcome, { kind: 'store_unavailable' }>> {
    try {
      return await operation();
    } catch (error) {
      this.logger?.error({ err: (error as Error).message }, 'store unavailable');
      return { kind: 'store_unavailable', code: 'STORE_UNAVAILABLE', error: `the store cannot be reached, so nothing ran: ${(error as Error).message}; try again when GET /healthz says ok` };
    }
  }

  private async run(
    registry: Registry,
    definition: ToolDefinition,
    params: Record<string, unknown>,
    approval: ReceiptApproval | null,
    timeoutMs: number,
    options: { signal?: AbortSignal; caller?: string | null; session?: string | null; onProgress?: (update: ProgressUpdate) => void },
  ): Promise<Receipt> {
    const id = randomUUID();
    const startedAt = new Date();
    // every executor reads its deadline from the constraints: the call's own one takes the definition's place
    const tool = timeoutMs === definition.constraints.timeout_ms ? definition : { ...definition, constraints: { ...definition.constraints, timeout_ms: timeoutMs } };
    const context = { ...(await this.targets.context(tool.executor === 'gatekeeper', options.signal)), ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
    const result = await execute(tool, params, context);
    const receipt: Receipt = {
      // the spec's six fields first, as a human reading a receipt expects them
      ok: result.ok, tool: tool.name, method: tool.method, output: result.output, error: result.error, duration_ms: result.duration_ms,
      id, executor: tool.executor, stderr: result.stderr, code: result.code, exit_code: result.exit_code, signal: result.signal,
      timed_out: result.timed_out, ...(result.resource_limit ? { resource_limit: result.resource_limit } : {}), output_bytes: result.output_bytes, cut_bytes: result.cut_bytes,
      ...(result.structured_content === undefined ? {} : { structured_content: result.structured_content }),
      // a secret the caller put in the params (a token, pasted) is not kept in the receipt either
      commit: registry.index.commit, params: redactValue(params, secretsOf(context)), started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), confirmation: approval?.id ?? null,
      timeout_ms: timeoutMs, caller: options.caller ?? null, session: options.session ?? null, approval,
      source: this.sourceOf(registry),
    };
    await this.keep(receipt);
    this.logger?.info({ call_id: id, tool: tool.name, executor: tool.executor, caller: receipt.caller, session: receipt.session, ok: receipt.ok, code: receipt.code, duration_ms: receipt.duration_ms }, 'call');
    return receipt;
  }

  /** Stores the receipt of a call that never ran (a policy, an approver or the clock said no). */
  private async storeUnrun(call: Omit<UnrunCall, 'source'>): Promise<Receipt> {
    const secrets = secretsOf(await this.targets.context(false));
    const receipt = unrunReceipt({ ...call, params: redactValue(call.params, secrets), error: redactValue(call.error, secrets), source: this.sourceOf(this.registries.current) });
    await this.keep(receipt);
    this.logger?.info({ call_id: receipt.id, tool: receipt.tool, caller: receipt.caller, session: receipt.session, ok: false, code: receipt.code, approval: receipt.approval?.id ?? null }, 'call not run');
    return receipt;
  }

  private sourceOf(registry: Registry): ReceiptSource {
    return { host: hostname(), repository: registry.index.source, ...(this.servingAt ? { url: this.servingAt } : {}) };
  }

  /** Stores a receipt before it is returned: a receipt the caller saw is a receipt a human can read later. */
  private async keep(receipt: Receipt): Promise<void> {
    try {
      await this.store.receipts.save(receipt);
    } catch (error) {
      // the call ran: its caller still gets the whole receipt, told that no one can read it later
      const reason = `RECEIPT_NOT_STORED: this call ran, but its receipt could not be stored: ${(error as Error).message}`;
      receipt.error = receipt.error === null ? reason : `${receipt.error}\n${reason}`;
      this.logger?.error({ call_id: receipt.id, tool: receipt.tool, err: (error as Error).message }, 'receipt not stored');
    }
  }
}

// a decision the store could not take: nothing ran (a run that began stores its own receipt)
function storeDown(error: unknown): ApprovalAnswer {
  return { ok: false, code: 'STORE_UNAVAILABLE', error: `the store cannot be reached, so nothing was decided: ${(error as Error).message}; try again when GET /healthz says ok` };
}

/** The configured store: PostgreSQL when `store.url` is set, else the SQLite file. */
export function openConfiguredStore(config: GatewayConfig): Promise<Store> {
  return openStore({ url: config.store.url, sqlitePath: config.receiptsDb, poolMax: config.store.poolMax });
}

/** Who asked for a call, for its events: the principal and the session, where known. */
function asker(caller: string | undefined, session: SessionState | undefined): CallAsked {
  return { ...(caller === undefined ? {} : { caller }), ...(session === undefined ? {} : { session: session.id }) };
}
