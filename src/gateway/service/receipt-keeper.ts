import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { markNotStored, type CallDeadline, type ExecutionResult, type ProgressUpdate, type Receipt, type ReceiptApproval, type ReceiptSource, type ToolDefinition } from '../../core/index.js';
import { describeError, execute, failedResult, redactSecrets, redactValue, secretsOf } from '../../executors/index.js';
import { unrunReceipt, type ApprovalAnswer, type UnrunCall } from '../../policy/index.js';
import type { Store } from '../../store/index.js';
import { timeoutNote } from './call-deadline.js';
import type { CallOutcome } from './call-outcome.js';
import type { ExecutionTargets } from './execution-targets.js';
import type { Registry } from './registry-swap.js';

/** Who a run is for and what it may be told: the caller's signal, progress sink, principal and session. */
export interface RunOptions {
  signal?: AbortSignal;
  caller?: string | null;
  session?: string | null;
  onProgress?: (update: ProgressUpdate) => void;
}

/**
 * The end of the call path: runs a tool through its executor and stores its receipt before anyone sees it, stores
 * the receipt of a call that never ran, and says so plainly when the store cannot be reached.
 */
export class ReceiptKeeper {
  /** the HTTP address the gateway serves at, once it does (recorded in receipts) */
  servingAt: string | undefined;
  /** fires when the gateway is stopped with runs still in flight: each is cancelled, and still stores its receipt */
  readonly #stopping = new AbortController();

  constructor(
    private readonly targets: ExecutionTargets,
    private readonly store: Store,
    private readonly logger: Logger | undefined,
    private readonly current: () => Registry,
    /** the gateway's ceiling of every call's deadline (`max_call_timeout_ms`), named in a TIMEOUT's error */
    private readonly maxCallTimeoutMs: number,
  ) {}

  /**
   * Runs `definition` under `deadline` (the call's own, the tool's, or an approver's; the receipt says which) and stores
   * the whole receipt. Whatever throws on the way (setting the run up, the executor's context, the receipt itself) still
   * yields one stored `INTERNAL_ERROR` receipt: an accepted call always gets one, and an approval it went through is
   * never left without.
   */
  async run(registry: Registry, definition: ToolDefinition, params: Record<string, unknown>, approval: ReceiptApproval | null, deadline: CallDeadline, options: RunOptions): Promise<Receipt> {
    const id = randomUUID();
    const startedAt = new Date();
    const start = performance.now();
    const progress = { executed: false };
    let receipt: Receipt;
    try {
      receipt = await this.runAndAssemble(id, startedAt, registry, definition, params, approval, deadline, options, progress);
    } catch (error) {
      const secrets = this.targets.configuredSecrets();
      const what = progress.executed ? 'ran, but its receipt could not be made, so its output is not kept' : 'could not be set up, so nothing ran';
      const result = failedResult('INTERNAL_ERROR', redactValue(`'${definition.name}' ${what}: ${describeError(error)}`, secrets), start);
      receipt = this.assemble(id, startedAt, registry, definition, result, safeParams(params, secrets), approval, deadline, options);
    }
    await this.keep(receipt);
    this.logger?.info({ call_id: id, tool: receipt.tool, executor: receipt.executor, caller: receipt.caller, session: receipt.session, ok: receipt.ok, code: receipt.code, duration_ms: receipt.duration_ms }, 'call');
    return receipt;
  }

  private async runAndAssemble(id: string, startedAt: Date, registry: Registry, definition: ToolDefinition, params: Record<string, unknown>, approval: ReceiptApproval | null, deadline: CallDeadline, options: RunOptions, progress: { executed: boolean }): Promise<Receipt> {
    const { timeoutMs } = deadline;
    // every executor reads its deadline from the constraints: the call's own one takes the definition's place
    const tool = timeoutMs === definition.constraints.timeout_ms ? definition : { ...definition, constraints: { ...definition.constraints, timeout_ms: timeoutMs } };
    const run = this.#runSignal(options.signal);
    let result: ExecutionResult;
    let context: Awaited<ReturnType<ExecutionTargets['context']>>;
    try {
      const targets = await this.targets.context(tool.executor === 'gatekeeper', run.signal);
      // a tool's progress goes to the same caller as its result, so it is redacted as the result is (review S, S7)
      const told = options.onProgress;
      const secrets = told ? secretsOf(targets) : [];
      context = { ...targets, ...(options.caller ? { caller: options.caller } : {}), ...(told ? { onProgress: (update: ProgressUpdate) => told(redactValue(update, secrets)) } : {}) };
      result = stoppedByGateway(await execute(tool, params, context), this.#stopping.signal.aborted && !options.signal?.aborted);
      if (result.code === 'TIMEOUT') result = { ...result, error: noted(result.error ?? 'timed out', timeoutNote(definition, timeoutMs, this.maxCallTimeoutMs)) };
    } finally {
      run.done();
    }
    progress.executed = true;
    // a secret the caller put in the params (a token, pasted) is not kept in the receipt either
    return this.assemble(id, startedAt, registry, definition, result, redactValue(params, secretsOf(context)), approval, deadline, options);
  }

  /**
   * Cancels every run in flight (the gateway is stopped at once: a second SIGTERM), each as its caller's hang-up would:
   * its process group killed, its receipt CANCELLED and stored, saying the gateway was stopped (review N, N10).
   */
  stopRuns(): void {
    this.#stopping.abort();
  }

  // the run's own signal: the caller's, or the gateway's stop, whichever comes first (listeners removed once it is over)
  #runSignal(caller: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    const sources = [caller, this.#stopping.signal].filter((source): source is AbortSignal => source !== undefined);
    for (const source of sources) {
      if (source.aborted) abort();
      else source.addEventListener('abort', abort, { once: true });
    }
    return { signal: controller.signal, done: () => sources.forEach((source) => source.removeEventListener('abort', abort)) };
  }

  private assemble(id: string, startedAt: Date, registry: Registry, tool: ToolDefinition, result: ExecutionResult, params: Record<string, unknown>, approval: ReceiptApproval | null, deadline: CallDeadline, options: RunOptions): Receipt {
    return {
      // the spec's six fields first, as a human reading a receipt expects them
      ok: result.ok, tool: tool.name, method: tool.method, output: result.output, error: result.error, duration_ms: result.duration_ms,
      id, executor: tool.executor, stderr: result.stderr, code: result.code, exit_code: result.exit_code, signal: result.signal,
      timed_out: result.timed_out, ...(result.resource_limit ? { resource_limit: result.resource_limit } : {}), output_bytes: result.output_bytes, cut_bytes: result.cut_bytes,
      ...(result.output_lossy ? { output_lossy: true } : {}), ...(result.stderr_lossy ? { stderr_lossy: true } : {}),
      ...(result.structured_content === undefined ? {} : { structured_content: result.structured_content }),
      ...(result.attachments === undefined ? {} : { attachments: result.attachments }),
      commit: registry.index.commit, params, started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), confirmation: approval?.id ?? null,
      timeout_ms: deadline.timeoutMs, ...(deadline.from ? { timeout_from: deadline.from } : {}), caller: options.caller ?? null, session: options.session ?? null, approval,
      source: this.sourceOf(registry),
    };
  }

  /**
   * Stores the receipt of a call that can run nowhere here, its target not configured (`ExecutionTargets.unconfiguredTarget`),
   * made as `run` makes a failed run's: a call that would have waited for a person gets the receipt a call that need
   * not wait gets, and no one is asked (review userZ7 F14).
   */
  async storeUnconfigured(registry: Registry, tool: ToolDefinition, params: Record<string, unknown>, result: ExecutionResult, deadline: CallDeadline, options: RunOptions): Promise<Receipt> {
    // the target's problem is redacted as an executor's result is: it may quote configuration (review Z15, Z15-1, I-3)
    const secrets = this.targets.configuredSecrets();
    const receipt = this.assemble(randomUUID(), new Date(), registry, tool, redactSecrets(result, secrets), safeParams(params, secrets), null, deadline, options);
    await this.keep(receipt);
    this.logger?.info({ call_id: receipt.id, tool: receipt.tool, executor: receipt.executor, caller: receipt.caller, session: receipt.session, ok: false, code: receipt.code, duration_ms: receipt.duration_ms }, 'call');
    return receipt;
  }

  /** Stores the receipt of a call that never ran (a policy, an approver or the clock said no). */
  async storeUnrun(call: Omit<UnrunCall, 'source'>): Promise<Receipt> {
    const secrets = secretsOf(await this.targets.context(false));
    const receipt = unrunReceipt({ ...call, params: redactValue(call.params, secrets), error: redactValue(call.error, secrets), source: this.sourceOf(this.current()) });
    await this.keep(receipt);
    this.logger?.info({ call_id: receipt.id, tool: receipt.tool, caller: receipt.caller, session: receipt.session, ok: false, code: receipt.code, approval: receipt.approval?.id ?? null }, 'call not run');
    return receipt;
  }

  /** A store operation, or the outcome that says the store cannot be reached (nothing ran). */
  async fromStore<T>(operation: () => Promise<T>): Promise<T | Extract<CallOutcome, { kind: 'store_unavailable' }>> {
    try {
      return await operation();
    } catch (error) {
      this.logger?.error({ err: (error as Error).message }, 'store unavailable');
      return { kind: 'store_unavailable', code: 'STORE_UNAVAILABLE', error: `the store cannot be reached, so nothing ran: ${(error as Error).message}; try again when GET /healthz says ok` };
    }
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
      markNotStored(receipt);
      this.logger?.error({ call_id: receipt.id, tool: receipt.tool, err: (error as Error).message }, 'receipt not stored');
    }
  }
}

/** A decision the store could not take: nothing ran (a run that began stores its own receipt). */
export function storeDown(error: unknown): ApprovalAnswer {
  return { ok: false, code: 'STORE_UNAVAILABLE', error: `the store cannot be reached, so nothing was decided: ${(error as Error).message}; try again when GET /healthz says ok` };
}

// the params as a failure receipt keeps them: redacted, or none at all where even that failed (never the raw ones)
function safeParams(params: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  try {
    return redactValue(params, secrets);
  } catch {
    return {};
  }
}

// a run cancelled because the gateway stopped says so, not that its caller gave up (the words are the executor's own,
// never the tool's: a CANCELLED result's error starts with them)
function stoppedByGateway(result: ExecutionResult, stopped: boolean): ExecutionResult {
  if (!stopped || result.code !== 'CANCELLED' || result.error === null) return result;
  // a gatekeeper's run names the gatekeeper first (`gatekeeper 'default': cancelled by the caller`)
  return { ...result, error: result.error.replace(/^((?:gatekeeper '[^']*': )?)cancelled by the caller/, '$1cancelled: the gateway was stopped before the call ended') };
}

/**
 * The gateway's note on a TIMEOUT put at the end of the executor's own first line, before the tool's raw stderr that
 * follows it: appended at the very end, it read as the tool's last stderr line, after 64 KiB of it (review userY, Y4).
 */
function noted(error: string, note: string): string {
  const end = error.indexOf('\n');
  return end < 0 ? `${error}${note}` : `${error.slice(0, end)}${note}${error.slice(end)}`;
}
