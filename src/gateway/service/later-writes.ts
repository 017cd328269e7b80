import type { Logger } from 'pino';
import type { UsageEvent } from '../../core/index.js';
import { redactValue, secretsOf } from '../../executors/index.js';
import type { Store } from '../../store/index.js';
import type { CallOutcome } from './call-outcome.js';
import type { ExecutionTargets } from './execution-targets.js';
import { rejectionOf, type AskedCall } from './rejection-step.js';

/**
 * What the gateway writes after it has answered: the usage events `hldp suggest examples` learns from, and the
 * records of refused calls a person reads later. Neither may slow or fail a call: a failed write is a warning in
 * the log. `settled` waits for those in flight (a gateway that closes).
 */
export class LaterWrites {
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly targets: ExecutionTargets,
    private readonly logger: Logger | undefined,
  ) {}

  /** Records a match or call of an agent session, after the current turn. */
  usage(event: UsageEvent): void {
    this.hold(
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.store.usage.record(event))
        .catch((error: unknown) => {
          this.logger?.warn({ err: (error as Error).message, session: event.session }, 'could not record a usage event');
        }),
    );
  }

  /** Records a call refused before it could run (`hldp receipts --rejected`), its params and reason without the configured secrets. */
  rejection(outcome: CallOutcome, asked: AskedCall): void {
    const rejected = rejectionOf(outcome, asked);
    if (!rejected) return;
    this.hold(
      this.targets
        .context(false)
        .then((context) => {
          const secrets = secretsOf(context);
          return this.store.rejections.save({ ...rejected, params: redactValue(rejected.params, secrets), reason: redactValue(rejected.reason, secrets) });
        })
        .catch((error: unknown) => {
          this.logger?.warn({ err: (error as Error).message, tool: rejected.tool }, 'could not record a rejected call');
        }),
    );
  }

  /** Resolves once every write begun so far has ended, stored or not. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  private hold(write: Promise<void>): void {
    const held = write.finally(() => this.writes.delete(held));
    this.writes.add(held);
  }
}
