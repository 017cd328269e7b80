import type { Logger } from 'pino';
import { Notifier } from '../../events/index.js';
import type { Gateway } from '../service/index.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/** A target's label: its place in `notify` and its host (never the path or query, which may hold a secret). */
function label(url: string, index: number): string {
  try {
    return `${index} ${new URL(url).host}`;
  } catch {
    return String(index);
  }
}

/** Starts the configured outgoing webhooks over the gateway's events, counting deliveries and failures in /metrics. */
export async function startNotifications(gateway: Gateway, metrics: GatewayMetrics, logger: Logger): Promise<Notifier | undefined> {
  const targets = gateway.config.notify;
  if (targets.length === 0) return undefined;
  const counters = new Map(targets.map((target, index) => [target, metrics.notifications(label(target.url, index))]));
  for (const counter of counters.values()) counter.watch();
  const { events } = gateway.config;
  const notifier = new Notifier(gateway.events, targets, {
    ...(events.notifyAttempts !== undefined ? { attempts: events.notifyAttempts } : {}),
    ...(events.notifyBackoffMs !== undefined ? { backoffMs: events.notifyBackoffMs } : {}),
    delivered: (target) => counters.get(target as (typeof targets)[number])?.delivered(),
    failedForGood: (target, event, reason) => {
      counters.get(target as (typeof targets)[number])?.failed();
      logger.warn({ target: label(target.url, targets.indexOf(target as (typeof targets)[number])), event: event.id, type: event.type, reason }, 'notification failed for good');
    },
  });
  await notifier.start();
  return notifier;
}
