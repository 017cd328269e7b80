import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { toolCount, type ToolIndex } from '../../core/index.js';
import type { GatewayObserver } from '../service/index.js';

/** The gateway's Prometheus metrics, fed by the gateway's observer hooks. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({ name: 'hldp_calls_total', help: 'Calls by tool, executor and outcome (ok, failed, confirmation_required, not_found, broken, invalid_params, confirmation_invalid)', labelNames: ['tool', 'executor', 'outcome'], registers: [this.registry] });
  private readonly callSeconds = new Histogram({ name: 'hldp_call_duration_seconds', help: 'Call latency, lookup to stored receipt', labelNames: ['executor'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [this.registry] });
  private readonly matchSeconds = new Histogram({ name: 'hldp_match_duration_seconds', help: 'Intent match latency', buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05], registers: [this.registry] });
  private readonly tools = new Gauge({ name: 'hldp_index_tools', help: 'Tools in the index being served', registers: [this.registry] });
  private readonly definitionErrors = new Gauge({ name: 'hldp_index_definition_errors', help: 'TOOL.hdlp files that failed to load at the served commit', registers: [this.registry] });
  private readonly stale = new Gauge({ name: 'hldp_index_stale', help: '1 when the repository could not be reached and the last good index is served', registers: [this.registry] });
  private readonly info = new Gauge({ name: 'hldp_index_info', help: 'The commit being served (value 1)', labelNames: ['commit'], registers: [this.registry] });
  private readonly notificationsDelivered = new Counter({ name: 'hldp_notifications_delivered_total', help: 'Outgoing webhook deliveries that got a 2xx, by target (its place in notify and its host)', labelNames: ['target'], registers: [this.registry] });
  private readonly notificationsFailed = new Counter({ name: 'hldp_notifications_failed_total', help: 'Outgoing webhook deliveries that failed for good (every attempt failed, or dropped because the receiver fell behind), by target', labelNames: ['target'], registers: [this.registry] });
  private readonly scans = new Counter({ name: 'hldp_scans_total', help: 'Rescans by result (changed, unchanged, failed)', labelNames: ['result'], registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'hldp_' });
  }

  /** The hooks to pass to `Gateway.open`. */
  observer(): GatewayObserver {
    return {
      called: (outcome, seconds) => {
        if (outcome.kind === 'receipt') {
          const { receipt } = outcome;
          this.calls.inc({ tool: receipt.tool, executor: receipt.executor, outcome: receipt.ok ? 'ok' : 'failed' });
          this.callSeconds.observe({ executor: receipt.executor }, seconds);
        } else {
          const tool = outcome.kind === 'invalid_params' || outcome.kind === 'timeout_not_allowed' ? outcome.tool : outcome.kind === 'confirmation_required' ? outcome.confirmation.tool : '';
          this.calls.inc({ tool, executor: '', outcome: outcome.kind });
        }
      },
      matched: (seconds) => this.matchSeconds.observe(seconds),
      scanned: (result) => {
        if ('error' in result) this.scans.inc({ result: 'failed' });
        else {
          this.scans.inc({ result: result.changed ? 'changed' : 'unchanged' });
          this.indexServed(result.index);
        }
      },
    };
  }

  /** Counts webhook deliveries of one target (`0 host:port`); `watch` starts both of its counters at 0. */
  notifications(target: string): { watch(): void; delivered(): void; failed(): void } {
    return {
      watch: () => {
        this.notificationsDelivered.inc({ target }, 0);
        this.notificationsFailed.inc({ target }, 0);
      },
      delivered: () => this.notificationsDelivered.inc({ target }),
      failed: () => this.notificationsFailed.inc({ target }),
    };
  }

  /** Reports how many subscribers the event hub has (SSE streams, MCP subscriptions, webhooks) as `hldp_event_subscribers`. */
  eventSubscribers(count: () => number): void {
    new Gauge({ name: 'hldp_event_subscribers', help: 'Subscribers of the event hub now: SSE streams, MCP hldp://events subscriptions, webhook targets', registers: [this.registry], collect() { this.set(count()); } });
  }

  /** Records the index now served. */
  indexServed(index: ToolIndex): void {
    this.tools.set(toolCount(index));
    this.definitionErrors.set(index.errors.length);
    this.stale.set(index.stale ? 1 : 0);
    this.info.reset();
    this.info.set({ commit: index.commit }, 1);
  }
}
