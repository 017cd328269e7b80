import type { Logger } from 'pino';
import { describeUrl, schedulePruning, scheduleRetention } from '../../store/index.js';
import type { Gateway } from '../service/index.js';
import type { RescanScheduler } from './rescan-scheduler.js';

/** The bus topic of "a push arrived: rescan". */
const RESCAN = 'rescan';

/** What ties one serving instance to the others sharing its store, and to the store's upkeep. */
export interface InstanceLinks {
  /** tells every other instance to rescan (the webhook and POST /v1/scan call it) */
  announceRescan(reason: string): void;
  stop(): Promise<void>;
}

/**
 * Subscribes to the other instances' rescan announcements (PostgreSQL LISTEN/NOTIFY; the repository poll stays the
 * fallback for a lost one) and starts pruning receipts, approval requests and rejected calls where a retention policy is configured.
 */
export async function linkInstance(gateway: Gateway, scheduler: RescanScheduler, logger: Logger): Promise<InstanceLinks> {
  const { config, store, instanceId } = gateway;
  let unsubscribe: (() => Promise<void>) | undefined;
  try {
    unsubscribe = await store.bus.subscribe(RESCAN, (message) => {
      if (message.origin !== instanceId) scheduler.request(`${String(message.reason)} at another instance`);
    });
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'cannot listen for other instances; a push they receive reaches this one at the next poll');
  }
  const retention = config.receiptsRetention
    ? scheduleRetention(store.receipts, config.receiptsRetention, {
        intervalMs: config.receiptsRetention.intervalMs,
        onPruned: (result) => logger.info({ deleted: result.deleted, checkpoint: result.checkpoint }, 'receipts pruned'),
        onError: (error) => logger.warn({ err: error.message }, 'pruning receipts failed; trying again at the next interval'),
      })
    : undefined;
  // decided approval requests and rejected-call records: the same passes, each on its own schedule
  const upkeep = (['approvals', 'rejections'] as const).flatMap((table) => {
    const policy = table === 'approvals' ? config.approvalsRetention : config.rejectionsRetention;
    if (!policy) return [];
    const what = table === 'approvals' ? 'approval requests' : 'rejected calls';
    return [
      schedulePruning(() => store[table].prune(policy), {
        intervalMs: policy.intervalMs,
        onPruned: (deleted) => logger.info({ deleted }, `${what} pruned`),
        onError: (error) => logger.warn({ err: error.message }, `pruning ${what} failed; trying again at the next interval`),
      }),
    ];
  });
  logger.info({ store: store.kind === 'postgres' && config.store.url ? describeUrl(config.store.url) : config.receiptsDb, instance: instanceId }, 'store open');
  // an upgrade's first start says that it moved the schema: an older build refuses the store from now on (README, "Rolling back")
  if (store.schemaSteps?.length) logger.info({ schema_steps: store.schemaSteps, schema_version: store.schemaSteps.at(-1)!.version }, 'store schema brought forward');
  return {
    announceRescan(reason) {
      store.bus.publish(RESCAN, { origin: instanceId, reason }).catch((error: Error) => {
        logger.warn({ err: error.message }, 'cannot tell the other instances to rescan; they find the push at their next poll');
      });
    },
    async stop() {
      await Promise.all([retention?.stop(), ...upkeep.map((pruning) => pruning.stop())]);
      await unsubscribe?.();
    },
  };
}
