import { decidePolicy, type ApprovalAnswer, type ApprovalDesk, type DecideOptions, type Principal } from '../../policy/index.js';
import type { ExecutionResult, ToolDefinition } from '../../core/index.js';
import type { SessionState } from '../../sessions/index.js';
import { chooseDeadline } from './call-deadline.js';
import { lookUpCall } from './call-lookup.js';
import type { CallOutcome } from './call-outcome.js';
import type { CallAsked, CallOptions, CallRequest, CallStep, GatewayObserver } from './gateway-types.js';
import type { LaterWrites } from './later-writes.js';
import { storeDown, type ReceiptKeeper } from './receipt-keeper.js';
import type { Registry } from './registry-swap.js';
import type { PathPlace } from './execution-targets.js';

/** What the call path takes from the gateway around it. */
export interface CallPathParts {
  /** the registry calls start on now */
  registry: () => Registry;
  keeper: ReceiptKeeper;
  later: LaterWrites;
  approvals: () => ApprovalDesk<Registry>;
  /** the principal a call acts for */
  principal: (name: string | undefined) => Principal;
  /** told what each call (or decision on one) came to */
  observers: readonly GatewayObserver[];
  maxCallTimeoutMs: number;
  /** how many calls one caller may have running at once */
  maxCallsInFlightPerCaller: number;
  /** where a call's relative paths land, for the policy's path conditions (no root when unknown) */
  pathPlace: (tool: ToolDefinition, params: Record<string, unknown>) => PathPlace;
  /** why the tool cannot run here at all (its executor's target is not configured), as its executor would fail it */
  unconfiguredTarget: (tool: ToolDefinition, params: Record<string, unknown>) => ExecutionResult | undefined;
}

/**
 * A call from its request to its answer: the steps (visibility, usage, …), then lookup → deadline → policy
 * decision → run, deny or ask for approval; confirmations and decisions on approval requests; the work in flight
 * that closing waits for, and the observers told what each call came to.
 */
export class CallPath {
  private readonly steps: CallStep[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** calls running now, by caller ('' for one without a name) */
  private readonly running = new Map<string, number>();

  constructor(private readonly parts: CallPathParts) {}

  /** Adds a step to the call path, after the ones already there. */
  use(step: CallStep): void {
    this.steps.push(step);
  }

  /** `{tool, params}`: through the call steps, then runs it (or asks for confirmation first) and stores its receipt before answering. */
  call(tool: string, params: unknown, options: CallOptions): Promise<CallOutcome> {
    const registry = this.parts.registry();
    const last = (request: CallRequest): Promise<CallOutcome> => this.callOn(registry, request);
    const chain = this.steps.reduceRight<(request: CallRequest) => Promise<CallOutcome>>((next, step) => (request) => step(request, next), last);
    // a call in a session acts for the session's principal
    const caller = options.caller ?? options.session?.principal;
    const release = this.admit(caller);
    const outcome = typeof release === 'function' ? chain({ tool, params, ...options, ...(caller === undefined ? {} : { caller }) }).finally(release) : Promise.resolve({ ...release, tool });
    // a call refused before it could run leaves a record a person can read (hldp receipts --rejected)
    void outcome.then((done) => this.parts.later.rejection(done, { tool, params, caller: caller ?? null, session: options.session?.id ?? null }), () => undefined);
    return this.track(outcome, { tool, ...asker(caller, options.session) });
  }

  /** Runs the call a confirmation token stands for, exactly as it was asked (under this request's deadline, if it names one). */
  confirm(token: string, options: Pick<CallOptions, 'signal' | 'timeoutMs' | 'caller' | 'session' | 'onProgress'> & Pick<DecideOptions, 'leaveIfElsewhere'>): Promise<CallOutcome> {
    const caller = options.caller ?? options.session?.principal;
    // the token is bound to the principal it was given to: the one presenting it is named, never taken from the token
    const presenter = this.parts.principal(caller).name;
    const release = this.admit(caller);
    if (typeof release !== 'function') return this.track(Promise.resolve({ ...release, tool: '' }), asker(caller, options.session));
    const confirming = this.parts.keeper.fromStore(() => this.parts.approvals().confirm(token, { caller: presenter, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}), ...(options.leaveIfElsewhere ? { leaveIfElsewhere: true } : {}) }));
    // the desk reports the receipt of the run it settled (as for any decision); reporting it here too doubled every
    // confirmed call's events, webhooks and metrics (review N, N1)
    return this.track(confirming.finally(release), asker(caller, options.session), (outcome) => outcome.kind !== 'receipt');
  }

  /**
   * Counts a call of `caller` as running, and returns what ends that; or, when the caller already has the most calls
   * running one caller may have, the refusal (nothing runs). One agent's fire-and-forget calls of a slow tool each held
   * a sandbox to its end, with nothing to bound them (review K, K7).
   */
  private admit(caller: string | undefined): (() => void) | Omit<Extract<CallOutcome, { kind: 'too_many_calls' }>, 'tool'> {
    const key = caller ?? '';
    const running = this.running.get(key) ?? 0;
    const most = this.parts.maxCallsInFlightPerCaller;
    if (running >= most) {
      return {
        kind: 'too_many_calls', code: 'TOO_MANY_CALLS', in_flight: running, most,
        error: `${caller ?? 'this caller'} already has ${running} calls running, the most one caller may have (max_calls_in_flight_per_caller); nothing ran: wait for one to end, then call again`,
      };
    }
    this.running.set(key, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left <= 0) this.running.delete(key);
      else this.running.set(key, left);
    };
  }

  /** An approver (or the caller, where its rule allows) approves or denies a pending request. */
  decide(id: string, principal: Principal, verdict: 'approve' | 'deny', options: DecideOptions): Promise<ApprovalAnswer> {
    return this.hold(this.parts.approvals().decide(id, principal, verdict, options).catch(storeDown));
  }

  /** The caller (or an admin) withdraws a pending request. */
  cancelApproval(id: string, principal: Principal, reason: string | null): Promise<ApprovalAnswer> {
    return this.hold(this.parts.approvals().cancel(id, principal, reason).catch(storeDown));
  }

  /** Tells the observers what a call (or a decision on one) came to. */
  report(outcome: CallOutcome, seconds: number, asked?: CallAsked): void {
    for (const observer of this.parts.observers) observer.called?.(outcome, seconds, asked);
  }

  /** Keeps track of work that writes to the store, so that `settled` waits for it. */
  hold<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  /** Calls (and other held work) running now. */
  get size(): number {
    return this.inFlight.size;
  }

  /** Resolves once the work running now has ended, whatever it came to. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private track(work: Promise<CallOutcome>, asked?: CallAsked, reported: (outcome: CallOutcome) => boolean = () => true): Promise<CallOutcome> {
    const start = performance.now();
    this.inFlight.add(work);
    return work.then(
      (outcome) => {
        this.inFlight.delete(work);
        if (reported(outcome)) this.report(outcome, (performance.now() - start) / 1000, asked);
        return outcome;
      },
      (error: unknown) => {
        this.inFlight.delete(work);
        throw error;
      },
    );
  }

  private async callOn(registry: Registry, request: CallRequest): Promise<CallOutcome> {
    const { keeper } = this.parts;
    const lookup = lookUpCall(registry, request.tool, request.params);
    if (!lookup.ok) return lookup.outcome;
    const { tool, data } = lookup;
    const deadline = chooseDeadline(tool, request.timeoutMs, this.parts.maxCallTimeoutMs);
    if (!deadline.ok) return deadline.outcome;
    const caller = this.parts.principal(request.caller);
    const place = this.parts.pathPlace(tool, data);
    const decision = decidePolicy(registry.index, tool, data, caller, place.roots, place.cwd);
    const session = request.session?.id ?? null;
    switch (decision.kind) {
      case 'allow':
        return { kind: 'receipt', receipt: await keeper.run(registry, tool, data, null, deadline, { ...request, session }) };
      case 'deny':
        return {
          kind: 'receipt',
          receipt: await keeper.storeUnrun({
            tool: tool.name, method: tool.method, executor: tool.executor, params: data, commit: registry.index.commit, code: 'DENIED',
            error: `${tool.name}: denied, nothing ran: ${decision.reason}`, caller: caller.name, session, approval: null, timeoutMs: deadline.timeoutMs, timeoutFrom: deadline.from,
          }),
        };
      case 'approve': {
        // a call that cannot run here at all is answered as an allowed call is, before a person is asked to decide it (review userZ7 F14)
        const unconfigured = this.parts.unconfiguredTarget(tool, data);
        if (unconfigured) return { kind: 'receipt', receipt: await keeper.storeUnconfigured(registry, tool, data, unconfigured, deadline, { ...request, session }) };
        return keeper.fromStore(() => this.parts.approvals().request(registry, tool, data, decision, caller.name, session, deadline));
      }
    }
  }
}

/** Who asked for a call, for its events: the principal and the session, where known. */
function asker(caller: string | undefined, session: SessionState | undefined): CallAsked {
  return { ...(caller === undefined ? {} : { caller }), ...(session === undefined ? {} : { session: session.id }) };
}
