import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { eachTool, runLettingGo, type MatchResult, type Receipt, type ToolDefinition, type ToolIndex } from '../../core/index.js';
import { EventHub } from '../../events/index.js';
import { redactValue, secretsIn } from '../../executors/index.js';
import type { McpServerPool } from '../../mcp-servers/index.js';
import { searchIndexFiles, type Matcher } from '../../matcher/index.js';
import { Scanner, trustedCacheDir, warmUpParserSteps, type PushHint } from '../../scanner/index.js';
import { accessRights, API_TOKEN_PRINCIPAL, ApprovalDesk, decidePolicy, LOCAL_PRINCIPAL, Principals, servedRegistry, type ApprovalAnswer, type DecideOptions, type Principal } from '../../policy/index.js';
import { SessionManager } from '../../sessions/index.js';
import { openStore, type ChainReport, type ReceiptQuery, type Store, type StoreHealth } from '../../store/index.js';
import type { SandboxStatus } from '../../sandbox/index.js';
import { DEFAULT_REPOSITORY, repositoryOptions, type GatewayConfig } from '../../config/index.js';
import { chooseDeadline } from './call-deadline.js';
import type { CallOutcome } from './call-outcome.js';
import { CallPath } from './call-path.js';
import { ExecutionTargets } from './execution-targets.js';
import { approvalResolved, eventObserver } from './gateway-events.js';
import { IntentMatching } from './intent-matching.js';
import { sessionStep } from './session-step.js';
import { sessionStoreOf } from './session-store-of.js';
import { tooDeepParams } from './unknown-tool.js';
import { usageStep } from './usage-step.js';
import { reachableUrl, runPlace } from './run-place.js';
import { RegistrySwap, type Registry, type RescanResult } from './registry-swap.js';
import { ReceiptKeeper } from './receipt-keeper.js';
import { LaterWrites } from './later-writes.js';
import type { CallOptions, CallStep, GatewayObserver, GatewayOptions, MatchOptions } from './gateway-types.js';

// how long after intent matching is ready a server compiles the parser's checks (for a later rescan)
const PARSER_WARM_UP_DELAY_MS = 1000;

export type { Registry, RescanResult };
export type { CallAsked, CallOptions, CallRequest, CallStep, GatewayObserver, GatewayOptions, MatchOptions } from './gateway-types.js';

/** The composition root's service: the registry and its rescans, sessions and approvals; calls go through `CallPath`, intents through `IntentMatching`. */
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
  private readonly observers: GatewayObserver[];
  private readonly later: LaterWrites;
  private readonly keeper: ReceiptKeeper;
  private readonly calls: CallPath;
  // the receipt chain walk running now, which every verify asked meanwhile shares
  private verifying: Promise<ChainReport> | undefined;
  private readonly intents: IntentMatching;
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
    this.keeper = new ReceiptKeeper(targets, store, logger, () => this.registries.current, config.maxCallTimeoutMs);
    this.later = new LaterWrites(store, targets, logger);
    // search indexes are kept between runs beside the scans, so a restart loads its own instead of building it
    this.registries = new RegistrySwap(scanner, index, searchIndexFiles(join(trustedCacheDir(config.cacheDir), 'search'), logger ? (message, code) => logger.warn({ code }, message) : undefined), logger, (result) => {
      for (const observer of this.observers) observer.scanned?.(result);
    });
    this.intents = new IntentMatching({
      registries: this.registries, visible: (answer, caller) => this.sessions.find(undefined, answer, caller).result, secrets: () => targets.configuredSecrets(),
      mayOffer: (name, caller) => this.sessions.mayOffer(undefined, [{ name }], caller).length > 0,
      usage: (event) => this.later.usage(event), matched: (seconds) => this.observers.forEach((observer) => observer.matched?.(seconds)), matcherModel: config.matcherModel, logger,
    });
    this.events = new EventHub({
      log: store.events,
      // other instances hear of new events at once over PostgreSQL; on SQLite the poll finds what other processes appended
      ...(store.kind === 'postgres' ? { bus: store.bus } : {}),
      pollMs: store.kind === 'postgres' ? 1000 : 200,
      origin: this.instanceId,
      ...(config.events.backlog !== undefined ? { backlog: config.events.backlog } : {}),
      onError: (error, what) => logger?.warn({ err: error.message }, what),
    });
    this.observers.push(eventObserver(this.events, index, () => targets.configuredSecrets(), this.instanceId.slice(0, 8)));
    this.principals = new Principals(config.principals);
    targets.learnSecrets(() => this.principals.authenticatedTokens());
    this.calls = new CallPath({ registry: () => this.registries.current, keeper: this.keeper, later: this.later, approvals: () => this.approvals, principal: (name) => this.principal(name), observers: this.observers, maxCallTimeoutMs: config.maxCallTimeoutMs, maxCallsInFlightPerCaller: config.maxCallsInFlightPerCaller, pathPlace: (tool, params) => targets.pathPlace(tool, params), unconfiguredTarget: (tool, params) => targets.unconfiguredTarget(tool, params) });
    // who runs an approved call, as a person reading an interrupted run's receipt needs to find it
    // the registry it serves, as a request it files names it to a CLI reading another (review userZ10, U10-1)
    const served = servedRegistry(config.repository, DEFAULT_REPOSITORY, config.configFile);
    const runner = { by: `${hostname()} pid ${process.pid} (instance ${this.instanceId})`, leaseMs: config.approvalRunLeaseMs };
    this.approvals = new ApprovalDesk({
      registry: () => this.registries.current,
      store,
      ttlMs: config.confirmationTtlMs,
      maxPendingPerCaller: config.maxPendingPerCaller,
      runner,
      place: runPlace(config),
      // where a decider at an instance that runs calls elsewhere is sent: the URL the operator gave it, else one guessed once it listens;
      // none while it serves no HTTP (hldp mcp, hldp call), though its config holds the gateway's public_url: a request an
      // agent's hldp mcp filed read at hldp serve as "filed here", under settings changed since (U11-16)
      filer: () => ({ by: runner.by, url: this.keeper.servingAt === undefined ? null : (config.listen.publicUrl ?? reachableUrl(this.keeper.servingAt, config.listen.host)), repository: served }),
      deadline: (tool, requestedMs) => chooseDeadline(tool, requestedMs, config.maxCallTimeoutMs),
      run: (registry, tool, params, approval, deadline, who) => this.keeper.run(registry, tool, params, approval, deadline, who),
      callerProblem: (registry, tool, record) => this.callerProblem(registry, tool, record.caller, record.params),
      unrun: (call) => this.keeper.storeUnrun(call),
      principals: () => [...this.principals.list(), LOCAL_PRINCIPAL],
      principalsLeftOut: () => (config.principalsLeftOut ?? []).map(({ name, roles }) => ({ name, roles: new Set(roles) })),
      // the run's own time (an unrun receipt's is 0)
      // approval.resolved goes into the log with the receipt's link to its request: a waiter answered finds it there
      resolution: { event: approvalResolved, announced: (event) => this.events.announced([event]) },
      finished: (outcome) => this.calls.report(outcome, outcome.receipt.duration_ms / 1000, { tool: outcome.kind === 'receipt' ? outcome.receipt.tool : undefined, ...(outcome.kind === 'receipt' && outcome.receipt.caller ? { caller: outcome.receipt.caller } : {}), ...(outcome.kind === 'receipt' && outcome.receipt.session ? { session: outcome.receipt.session } : {}) }),
    });
    // the rights layer of the one visibility function: principals, tools' access blocks, policies' access rules
    this.sessions = new SessionManager({ registry: () => this.registries.current, config: config.sessions, rights: [accessRights(this.principals)], ...sessionStoreOf(config, store, clock, logger), ...(clock ? { clock } : {}), ...(logger ? { logger } : {}) });
    // the toolsets a rescan takes away, and at which commit: the sessions holding one are told (review userX, X2)
    this.registries.beforeSwap(async (next, previous) => this.sessions.noteSwap(previous.index, next.index));
    // visibility is the first step: a forbidden tool is refused and a reserved one substituted before anything else looks at the call
    this.use(sessionStep(this.sessions, (name, params) => this.registries.current.matcher.lookup(name, tooDeepParams(params) ? {} : (params ?? {})), () => this.registries.current.removed));
    // then what a session reaches for is remembered: its recent tools inform its next matches, and the pair is stored
    this.use(usageStep(this.intents.recentTools, (event) => this.later.usage(event), () => this.registries.current));
  }

  /** Scans the configured repository and opens the store; throws `ScanError` if nothing can be served. */
  static async open(options: GatewayOptions): Promise<Gateway> {
    const { config } = options;
    const scanner = new Scanner(repositoryOptions(config));
    const targets = new ExecutionTargets(config, options.logger, options.onWorkspaceNotice);
    // the sandbox probe waits on child processes: begun now, it runs while the scan reads the cache; `warmUp` awaits it
    if (options.probeSandbox) void targets.sandboxed().catch(() => undefined);
    let index: ToolIndex;
    try {
      index = await scanner.scan(undefined, options.signal);
    } catch (error) {
      await targets.close();
      throw error;
    }
    const store = options.store ?? (await openConfiguredStore(config, options.logger));
    const observers = [...(options.observer ? [options.observer] : []), ...(options.observers ?? [])];
    return new Gateway(config, scanner, index, store, targets, options.logger, observers, options.clock);
  }

  /** The registry calls start on now. */
  get registry(): Registry {
    return this.registries.current;
  }

  /** Adds a step to the call path, after the ones already there. */
  use(step: CallStep): void {
    this.calls.use(step);
  }

  /** Subscribes an observer to calls, matches and scans; returns the unsubscribe function. */
  observe(observer: GatewayObserver): () => void {
    this.observers.push(observer);
    return () => {
      const at = this.observers.indexOf(observer);
      if (at >= 0) this.observers.splice(at, 1);
    };
  }

  /** Tool definitions of the current index, one at a time (none kept: of an index from the scan cache, `index.tools` makes and keeps them all). */
  tools(): Iterable<ToolDefinition> {
    return eachTool(this.registries.current.index);
  }

  /**
   * An intent's 1-3 candidates (only tools the caller may use) or `found: false`; never executes
   * anything. With `matcher.model` configured, a request the words match weakly or not at all is also
   * put to the model.
   */
  match(intent: string, options: MatchOptions = {}): Promise<MatchResult> {
    return this.intents.match(intent, options);
  }

  /** `{tool, params}`: through the call steps, then runs it (or asks for confirmation first) and stores its receipt before answering. */
  call(tool: string, params: unknown, options: CallOptions = {}): Promise<CallOutcome> {
    return this.calls.call(tool, params, options);
  }

  /** Runs the call a confirmation token stands for, exactly as it was asked (under this request's deadline, if it names one). */
  confirm(token: string, options: Pick<CallOptions, 'signal' | 'timeoutMs' | 'caller' | 'session' | 'onProgress'> & Pick<DecideOptions, 'leaveIfElsewhere'> = {}): Promise<CallOutcome> {
    return this.calls.confirm(token, options);
  }

  /** An approver (or the caller, where its rule allows) approves or denies a pending request; approving runs exactly its call, once. */
  decide(id: string, principal: Principal, verdict: 'approve' | 'deny', options: DecideOptions = {}): Promise<ApprovalAnswer> {
    return this.calls.decide(id, principal, verdict, options);
  }

  /** The caller (or an admin) withdraws a pending request: a `CANCELLED` receipt, nothing ran. */
  cancelApproval(id: string, principal: Principal, reason: string | null): Promise<ApprovalAnswer> {
    return this.calls.cancelApproval(id, principal, reason);
  }

  /** The principal of that name (absent: `local`); one no longer configured has no roles. */
  principal(name: string | undefined): Principal {
    return this.principals.get(name ?? LOCAL_PRINCIPAL.name) ?? { name: name ?? LOCAL_PRINCIPAL.name, roles: new Set() };
  }

  /**
   * Why `caller` may not run this call now, by the decisions a fresh call goes through (visibility's rights,
   * then the policy); undefined when it may. Asked when a request filed earlier is approved or confirmed.
   */
  private callerProblem(registry: Registry, tool: ToolDefinition, caller: string, params: Record<string, unknown>): string | undefined {
    const decision = this.sessions.decideCall(undefined, tool.name, 'tool_call', caller);
    if (decision.kind === 'refuse') return decision.visibility.reason;
    const place = this.targets.pathPlace(tool, params);
    const policy = decidePolicy(registry.index, tool, params, this.principal(caller), place.roots, place.cwd);
    return policy.kind === 'deny' ? policy.reason : undefined;
  }

  /** Reads stored receipts, newest first. */
  receipts(query: ReceiptQuery = {}): Promise<Receipt[]> {
    return this.store.receipts.list(query);
  }

  /**
   * Walks the receipt chain and names the first broken link, if any. Asked again while a walk runs, it answers with
   * that walk's report: however many ask at once, the store is walked once.
   */
  verifyReceipts(): Promise<ChainReport> {
    this.verifying ??= this.store.receipts.verify().finally(() => {
      this.verifying = undefined;
    });
    return this.verifying;
  }

  /** Whether the store answers now (a bounded round trip). */
  storeHealth(): Promise<StoreHealth> {
    return this.store.health();
  }

  /** A call's params as people and callers are shown them (approval requests, the console): without any configured secret, as receipts and events keep them. */
  shownParams(params: Record<string, unknown>): Record<string, unknown> {
    return redactValue(params, this.targets.configuredSecrets());
  }

  /**
   * Which of the configured secrets a call's params hold, by setting (never the value), each once: shown `[REDACTED]`
   * to the person deciding it, they run as written, so the approver is told (review userZ6 F12).
   */
  secretsHeld(params: Record<string, unknown>): string[] {
    return secretsIn(params, this.targets.secretSettings());
  }

  /**
   * Scans again; a new commit swaps in a new index and matcher atomically (calls in flight keep theirs). Rescans run
   * one after another. `pushed`: what a signed push webhook said, so that a remote is fetched beside its head check.
   */
  rescan(pushed?: PushHint): Promise<RescanResult> {
    return this.registries.rescan(pushed);
  }

  /** Whether a rescan waits to start, which a rescan asked for now joins (at no cost of its own). */
  get rescanQueued(): boolean {
    return this.registries.queued;
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
    return this.calls.size;
  }

  /**
   * For servers: starts the embedded gatekeeper and probes the sandbox ahead of the first request. Intent matching
   * (the search index, its calibration) and the parser's checks are not prepared here: a server starts
   * `prepareInBackground` once it listens, so calls by name, listings and health are answered meanwhile, and a match
   * waits for it.
   */
  async warmUp(): Promise<void> {
    // unattended approval requests still expire, each with its EXPIRED receipt
    // and this process is in the store's roll of serving instances before it files one (review userZ6 F10)
    await this.approvals.start(
      (error) => this.logger?.warn({ err: error.message }, 'could not expire approval requests'),
      // not the sweep's words: a beat of the roll failed, warned once until one succeeds, each later one at debug (review Z12, Z12-8)
      (error, first) => this.logger?.[first ? 'warn' : 'debug']({ err: error.message }, "could not renew this instance's row in the store's roll of live instances (other instances may not count it as serving until a beat succeeds)"),
    );
    // probed at start, so that what the sandbox cannot enforce is said before the first call
    await this.targets.sandboxed();
    if (this.targets.embedsGatekeeper) await this.targets.startEmbedded();
  }

  /**
   * For servers, once they listen: prepares intent matching, then, a second after it is ready, compiles what parsing a
   * definition compiles on first use (the TOOL.hdlp schema, params schemas' meta-schema, RE2), a step at a time, so
   * that a later rescan does not compile it while requests wait, and the first requests do not wait for it either.
   * `alongside` (the HTTP API's match body checkers) runs beside the preparation, which says ready once it is done.
   */
  prepareInBackground(alongside?: () => Generator<void, void, void>): void {
    if (alongside !== undefined) this.intents.alsoBeforeReady(alongside);
    const warmUpParsing = (): void => {
      runLettingGo(warmUpParserSteps()).catch((error: unknown) => {
        this.logger?.warn({ err: (error as Error).message }, 'could not compile the parser\'s checks ahead of a rescan');
      });
    };
    // the parser's checks are for a later rescan: compiled a second after matching is ready, a step at a time, not as
    // the first matches come. Compiled at once they held the event loop ~130 ms of CPU then, and split they still
    // would hold it 40-60 ms a step, which a request meets at each of its turns (reading it, answering it) (issue #18)
    const later = (): void => {
      setTimeout(warmUpParsing, PARSER_WARM_UP_DELAY_MS).unref();
    };
    // the matcher reads the definitions it needs a slice at a time (a request by name waits for none of them), and holds none
    this.prepareMatching().then(later, later);
  }

  /**
   * Prepares intent matching over the current registry (reads its search index kept on disk, or builds it, then
   * measures its confidence cut), a slice at a time; resolves with the matcher once it is ready. Started once per
   * registry; a rescan's new registry is prepared before it is swapped in.
   */
  prepareMatching(matcher: Matcher = this.registries.current.matcher): Promise<Matcher> {
    return this.intents.prepare(matcher);
  }

  /** Intent matching over the current registry: `ready`, `loading` (its search index is read or built) or `failed` (the next match tries again). */
  get matching(): 'ready' | 'loading' | 'failed' {
    return this.intents.state;
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

  /** Cancels the runs in flight (a stop that will not wait for them): each still stores its receipt, CANCELLED, before `close` ends. */
  stopCalls(): void {
    this.keeper.stopRuns();
  }

  /** Lets calls in flight finish (their receipts stored), then stops the embedded gatekeeper and closes the store. */
  async close(): Promise<void> {
    // no one is left to match for: a preparation still running stops at its next turn (review R, R15), and has ended
    // before the store closes, so that its line is not logged after the server says it stopped (memz23)
    const preparing = this.intents.stop();
    // out of the store's roll of serving instances before the store closes: others then know it runs nothing more
    const leaving = this.approvals.stop().catch((error: unknown) => this.logger?.warn({ err: (error as Error).message }, 'could not leave the roll of live instances'));
    await this.calls.settled();
    await this.later.settled();
    // the events of the last calls reach the log before the store closes
    await this.events.stop();
    await this.scanner.flush();
    await preparing;
    // the search index a rescan updated is kept for the next start
    this.registries.current.matcher.persist();
    await this.targets.close();
    await leaving;
    await this.store.close();
  }

  /** Keeps track of work that writes to the store, so that `close` waits for it. */
  hold<T>(work: Promise<T>): Promise<T> {
    return this.calls.hold(work);
  }
}

/** The configured store: PostgreSQL when `store.url` is set, else the SQLite file. */
export function openConfiguredStore(config: GatewayConfig, logger?: Logger): Promise<Store> {
  return openStore({ url: config.store.url, sqlitePath: config.receiptsDb, poolMax: config.store.poolMax, ...(logger ? { warn: (message, details) => logger.warn(details, message) } : {}) });
}
