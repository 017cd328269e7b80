import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { findTool, toolCount, type ToolIndex } from '../../core/index.js';
import type { WaitingApprovals } from '../../store/index.js';
import type { GatewayObserver } from '../service/index.js';

type PromClient = typeof import('prom-client');

/** A receipt of a call that did not run because a person or the clock said no: not a tool that failed */
const NOT_RUN: Partial<Record<string, string>> = { DENIED: 'denied', EXPIRED: 'expired', CANCELLED: 'cancelled' };

/** The metrics themselves, made once prom-client is loaded. */
interface Instruments {
  registry: Registry;
  calls: Counter;
  callSeconds: Histogram;
  matchSeconds: Histogram;
  tools: Gauge;
  definitionErrors: Gauge;
  stale: Gauge;
  info: Gauge;
  notificationsDelivered: Counter;
  notificationsFailed: Counter;
  notificationsSkipped: Counter;
  scans: Counter;
  gauge: PromClient['Gauge'];
}

/**
 * The gateway's Prometheus metrics, fed by the gateway's observer hooks. prom-client (and the
 * OpenTelemetry API it brings, ~0.13-0.19 s of CPU) is loaded by `start`, which a server calls once it
 * listens, or by the first `exposition`; what is counted before is kept and counted then, in order. The
 * default collectors (process, event loop, garbage collection) start with it: they see nothing earlier.
 */
export class GatewayMetrics {
  private instruments: Instruments | undefined;
  private loading: Promise<Instruments> | undefined;
  private readonly pending: Array<(instruments: Instruments) => void> = [];
  /** the index served, whose tool gives the executor of a call that ends before a receipt names it (looked up then: a
   * map of every tool's made every definition of an index served from the scan cache, ~190 MB at 100,000; review Z9-8) */
  private served: ToolIndex | undefined;

  /** Loads prom-client and starts the collectors (once); what was counted meanwhile is counted now. */
  async start(): Promise<void> {
    await this.load();
  }

  /** The metrics in Prometheus's text format, with its content type (loads prom-client if `start` has not). */
  async exposition(): Promise<{ contentType: string; text: string }> {
    const { registry } = await this.load();
    return { contentType: registry.contentType, text: await registry.metrics() };
  }

  private load(): Promise<Instruments> {
    this.loading ??= import('prom-client').then((client) => {
      const instruments = createInstruments(client);
      for (const apply of this.pending.splice(0)) apply(instruments);
      this.instruments = instruments;
      return instruments;
    });
    return this.loading;
  }

  // counts now, or once prom-client is loaded
  private record(apply: (instruments: Instruments) => void): void {
    if (this.instruments === undefined) this.pending.push(apply);
    else apply(this.instruments);
  }

  /** The hooks to pass to `Gateway.open`. */
  observer(): GatewayObserver {
    return {
      called: (outcome, seconds) => {
        if (outcome.kind === 'receipt') {
          const { receipt } = outcome;
          const result = receipt.ok ? 'ok' : (NOT_RUN[receipt.code ?? ''] ?? 'failed');
          this.record(({ calls, callSeconds }) => {
            calls.inc({ tool: receipt.tool, executor: receipt.executor, outcome: result });
            callSeconds.observe({ executor: receipt.executor }, seconds);
          });
        } else {
          // every outcome that names its tool is counted under it, with the tool's executor (review userZ9, U9-3: a
          // refused or reserved call was counted under tool="" and an operator could not tell which tool agents were refused)
          // — but only a tool the registry has (or a broken definition of it): a name a caller made up (a call refused
          // for too many in flight is refused before its lookup) would make a label value of its own, without end
          const named = outcome.kind === 'confirmation_required' ? outcome.confirmation.tool : 'tool' in outcome ? outcome.tool : '';
          const served = named === '' || this.served === undefined ? undefined : findTool(this.served, named);
          const tool = served !== undefined || outcome.kind === 'broken' ? named : '';
          // a request waiting for an approver is `approval_required`, not the caller's own confirmation (review userZ6, F11)
          // the same call repeated while its request waits filed nothing: `already_pending`, not one more request (review userZ9, U9-8)
          const kind = outcome.kind !== 'confirmation_required' ? outcome.kind : outcome.confirmation.already_pending ? 'already_pending' : outcome.confirmation.status;
          this.record(({ calls }) => calls.inc({ tool, executor: served?.executor ?? '', outcome: kind }));
        }
      },
      matched: (seconds) => this.record(({ matchSeconds }) => matchSeconds.observe(seconds)),
      scanned: (result) => {
        if ('error' in result) this.record(({ scans }) => scans.inc({ result: 'failed' }));
        else {
          this.record(({ scans }) => scans.inc({ result: result.changed ? 'changed' : 'unchanged' }));
          this.indexServed(result.index);
        }
      },
    };
  }

  /** Counts webhook deliveries of one target (`0 host:port`); `watch` starts both of its counters at 0. */
  notifications(target: string): { watch(): void; delivered(): void; failed(): void; skipped(): void } {
    return {
      watch: () =>
        this.record(({ notificationsDelivered, notificationsFailed, notificationsSkipped }) => {
          notificationsDelivered.inc({ target }, 0);
          notificationsFailed.inc({ target }, 0);
          notificationsSkipped.inc({ target }, 0);
        }),
      skipped: () => this.record(({ notificationsSkipped }) => notificationsSkipped.inc({ target })),
      delivered: () => this.record(({ notificationsDelivered }) => notificationsDelivered.inc({ target })),
      failed: () => this.record(({ notificationsFailed }) => notificationsFailed.inc({ target })),
    };
  }

  /** Reports how many subscribers the event hub has (SSE streams, MCP subscriptions, webhooks) as `hldp_event_subscribers`. */
  eventSubscribers(count: () => number): void {
    this.record(({ gauge, registry }) => {
      new gauge({ name: 'hldp_event_subscribers', help: 'Subscribers of the event hub now: SSE streams, MCP hldp://events subscriptions, webhook targets', registers: [registry], collect() { this.set(count()); } });
    });
  }

  /**
   * Reports the store's approval requests waiting for a decision as `hldp_approvals_pending` and how long the oldest
   * has waited as `hldp_approvals_oldest_pending_seconds` (0 when none), read from the store at each scrape: the
   * same figures from every instance of one store. A failed read leaves both out of that scrape rather than failing it.
   */
  approvalsWaiting(read: () => Promise<WaitingApprovals>): void {
    this.record(({ gauge, registry }) => {
      let reading: Promise<WaitingApprovals | undefined> | undefined;
      // one read serves both gauges of a scrape: the first collect starts it, the second takes it and clears it
      const current = (): Promise<WaitingApprovals | undefined> => {
        if (reading === undefined) {
          reading = read().catch(() => undefined);
          return reading;
        }
        const taken = reading;
        reading = undefined;
        return taken;
      };
      new gauge({ name: 'hldp_approvals_pending', help: 'Approval requests waiting for a decision now, in the store (every caller; expired ones left out)', registers: [registry], async collect() {
        const waiting = await current();
        if (waiting === undefined) this.reset();
        else this.set(waiting.count);
      } });
      new gauge({ name: 'hldp_approvals_oldest_pending_seconds', help: 'How long the oldest approval request still waiting was filed ago (0 when none waits)', registers: [registry], async collect() {
        const waiting = await current();
        if (waiting === undefined) this.reset();
        else this.set((waiting.oldestAgeMs ?? 0) / 1000);
      } });
    });
  }

  /** Records the index now served. */
  indexServed(index: ToolIndex): void {
    const [count, errors, stale, commit] = [toolCount(index), index.errors.length, index.stale ? 1 : 0, index.commit];
    this.served = index;
    this.record((instruments) => {
      instruments.tools.set(count);
      instruments.definitionErrors.set(errors);
      instruments.stale.set(stale);
      instruments.info.reset();
      instruments.info.set({ commit }, 1);
    });
  }
}

function createInstruments({ Counter, Gauge, Histogram, Registry, collectDefaultMetrics }: PromClient): Instruments {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'hldp_' });
  return {
    registry,
    calls: new Counter({ name: 'hldp_calls_total', help: 'Calls by tool, executor and outcome: ok, failed (the tool ran, or could not start, and failed); denied, expired, cancelled (held for a decision that said no, or came too late: nothing ran); confirmation_required (the caller may confirm it), approval_required (an approver decides), already_pending (the same call waits already: no request filed); refused (the caller may not use the tool), substituted (a reserved tool: its toolset enabled instead); not_found, broken, invalid_params, timeout_not_allowed, too_many_pending, too_many_calls, confirmation_invalid, store_unavailable (nothing ran)', labelNames: ['tool', 'executor', 'outcome'], registers }),
    callSeconds: new Histogram({ name: 'hldp_call_duration_seconds', help: 'Call latency, lookup to stored receipt', labelNames: ['executor'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers }),
    matchSeconds: new Histogram({ name: 'hldp_match_duration_seconds', help: 'Intent match latency', buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05], registers }),
    tools: new Gauge({ name: 'hldp_index_tools', help: 'Tools in the index being served', registers }),
    definitionErrors: new Gauge({ name: 'hldp_index_definition_errors', help: 'TOOL.hdlp files that failed to load at the served commit', registers }),
    stale: new Gauge({ name: 'hldp_index_stale', help: '1 when the repository could not be reached and the last good index is served', registers }),
    info: new Gauge({ name: 'hldp_index_info', help: 'The commit being served (value 1)', labelNames: ['commit'], registers }),
    notificationsDelivered: new Counter({ name: 'hldp_notifications_delivered_total', help: 'Outgoing webhook deliveries that got a 2xx, by target (its place in notify and its host)', labelNames: ['target'], registers }),
    notificationsFailed: new Counter({ name: 'hldp_notifications_failed_total', help: 'Outgoing webhook deliveries that failed for good (every attempt failed, or dropped because the receiver fell behind), by target', labelNames: ['target'], registers }),
    notificationsSkipped: new Counter({ name: 'hldp_notifications_skipped_total', help: 'Outgoing webhook deliveries another instance on the store claimed, and so sent: not sent from this one, by target', labelNames: ['target'], registers }),
    scans: new Counter({ name: 'hldp_scans_total', help: 'Rescans by result (changed, unchanged, failed)', labelNames: ['result'], registers }),
    gauge: Gauge,
  };
}
