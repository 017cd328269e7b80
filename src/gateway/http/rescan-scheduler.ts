import type { Logger } from 'pino';
import type { PushHint } from '../../scanner/index.js';
import type { Gateway } from '../service/index.js';

/** Runs rescans one at a time in the background; a request during a scan runs one more after it (the push may be newer). */
export class RescanScheduler {
  private running: Promise<void> | undefined;
  private again = false;
  // what the last request's push webhook said, for the rescan that request runs
  private pushed: PushHint | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly gateway: Gateway,
    private readonly logger: Logger,
  ) {}

  /** Asks for a rescan; returns at once. `pushed`: what a signed push webhook said the branch now names. */
  request(reason: string, pushed?: PushHint): void {
    this.pushed = pushed;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop(reason).finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when no rescan is running or pending. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Checks the repository every `intervalMs` (the fallback when no webhook comes); 0 turns it off. */
  poll(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => this.request('poll'), intervalMs);
    this.timer.unref();
  }

  /** Stops polling and waits for a running rescan. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.again = false;
    await this.idle();
  }

  private async loop(reason: string): Promise<void> {
    let why = reason;
    do {
      this.again = false;
      const pushed = this.pushed;
      this.pushed = undefined;
      try {
        const result = await this.gateway.rescan(pushed);
        this.logger.debug({ reason: why, commit: result.commit, changed: result.changed }, 'rescan');
      } catch {
        // the gateway logged it and keeps the last good index; /healthz reports it
      }
      why = 'requested during a rescan';
    } while (this.again);
  }
}
