import type { Logger } from 'pino';
import type { EventHub } from './event-hub.js';
import type { HldpEvent } from './event-types.js';
import { Notifier, type NotifyTargetOptions } from './notifier.js';

/** What the outgoing webhooks are counted and logged with: a target's counters (by its label), and the log. */
export interface NotificationsReport {
  counters(label: string): { watch(): void; delivered(): void; failed(): void; skipped(): void };
  logger: Pick<Logger, 'warn'>;
  /**
   * Claims an event's delivery to a target in the shared store (the key names the target): false when another
   * instance claimed it first, and sends it (U11-12). Without it, every instance sends every event.
   */
  claim?: (event: HldpEvent, key: string) => Promise<boolean>;
}

/** A target's label: its place in `notify` and its host (never the path or query, which may hold a secret). */
function label(url: string, index: number): string {
  try {
    return `${index} ${new URL(url).host}`;
  } catch {
    return String(index);
  }
}

/**
 * Starts the configured outgoing webhooks (`notify`, retried as the config's `events` says) over the hub's events,
 * counting deliveries and failures (in /metrics) and logging a delivery that failed for good.
 */
export async function startNotifications(
  hub: EventHub,
  targets: readonly NotifyTargetOptions[],
  events: { notifyAttempts?: number; notifyBackoffMs?: number },
  { counters: countersOf, logger, claim }: NotificationsReport,
): Promise<Notifier | undefined> {
  if (targets.length === 0) return undefined;
  const counters = new Map(targets.map((target, index) => [target, countersOf(label(target.url, index))]));
  for (const counter of counters.values()) counter.watch();
  const notifier = new Notifier(hub, targets, {
    ...(events.notifyAttempts !== undefined ? { attempts: events.notifyAttempts } : {}),
    ...(events.notifyBackoffMs !== undefined ? { backoffMs: events.notifyBackoffMs } : {}),
    ...(claim ? { claim } : {}),
    skipped: (target) => counters.get(target as (typeof targets)[number])?.skipped(),
    claimFailed: (target, event, error) => {
      logger.warn({ target: label(target.url, targets.indexOf(target as (typeof targets)[number])), event: event.id, type: event.type, err: error.message }, 'notification not claimed in the store: sent from this instance, which others may send too');
    },
    delivered: (target) => counters.get(target as (typeof targets)[number])?.delivered(),
    failedForGood: (target, event, reason) => {
      counters.get(target as (typeof targets)[number])?.failed();
      logger.warn({ target: label(target.url, targets.indexOf(target as (typeof targets)[number])), event: event.id, type: event.type, reason }, 'notification failed for good');
    },
  });
  await notifier.start();
  return notifier;
}
