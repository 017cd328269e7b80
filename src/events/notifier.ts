import { createHash, createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadlineSignal } from '../core/index.js';
import type { EventHub } from './event-hub.js';
import type { HldpEvent } from './event-types.js';
import { notifyWants } from './notify-selection.js';

/**
 * One outgoing webhook: where, which events (`failures` standing for every failure type; `confirmation.requested` and
 * `confirmation.resolved` for an agent's own confirmations, which `approval.*` leaves out), and the signing secret.
 */
export interface NotifyTargetOptions {
  url: string;
  events: readonly string[];
  secret?: string;
}

/** How deliveries are retried, and what to tell when one fails for good. */
export interface NotifierOptions {
  /** attempts in all, the first included; default 6 */
  attempts?: number;
  /** the first pause before a retry; it doubles each time (with jitter), default 1000 ms */
  backoffMs?: number;
  /** each attempt's deadline; default 10 s */
  timeoutMs?: number;
  /** events queued for one target at most; past that the oldest is dropped and counted as failed */
  maxQueued?: number;
  /** characters of JSON queued for one target at most (default 16 Mi); past that the oldest are dropped and counted as failed */
  maxQueuedBytes?: number;
  /**
   * Claims an event's delivery to a target (`key`: the target's name, the same at every instance given the same
   * `notify`) before its first attempt: false when another instance claimed it, which then delivers it (U11-12). A
   * claim that fails (the store down) delivers: a duplicate a receiver can drop beats a page never sent.
   */
  claim?: (event: HldpEvent, key: string) => Promise<boolean>;
  /** an event another instance claimed: not sent from here */
  skipped?: (target: NotifyTargetOptions, event: HldpEvent) => void;
  /** a claim that could not be made: the event is sent from here all the same */
  claimFailed?: (target: NotifyTargetOptions, event: HldpEvent, error: Error) => void;
  delivered?: (target: NotifyTargetOptions, event: HldpEvent, attempts: number) => void;
  failedForGood?: (target: NotifyTargetOptions, event: HldpEvent, reason: string) => void;
}

/** The signature a receiver checks: hex HMAC-SHA256 of the raw body with the shared secret (Forgejo's scheme). */
export function signBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** An event waiting for one target, with the JSON body it is sent as. */
interface Queued {
  event: HldpEvent;
  body: string;
}

/**
 * Each target's claim key: the SHA-256 of its URL and how many targets before it have the same URL (never the URL
 * itself, whose query may hold a secret). Instances given the same `notify` list agree on it.
 */
export function claimKeys(targets: readonly NotifyTargetOptions[]): string[] {
  const seen = new Map<string, number>();
  return targets.map(({ url }) => {
    const occurrence = seen.get(url) ?? 0;
    seen.set(url, occurrence + 1);
    return createHash('sha256').update(`${url}\n${occurrence}`).digest('hex');
  });
}

/**
 * Outgoing webhooks: every event a target asked for is POSTed to it as JSON, signed like Forgejo's webhooks
 * (`X-Hldp-Signature` and `X-Hub-Signature-256`), one at a time per target in id order, retried with exponential
 * back-off on a network error or a 5xx/429; a delivery that never succeeds is counted and logged by the caller.
 * With `claim`, an event is sent only when this instance's claim of it (for that target) wins in the shared store, so
 * N instances send it once, not N times (U11-12). `X-Hldp-Delivery` is the event id, the same from every instance, so a
 * receiver can drop the duplicates a claim that could not be made lets through.
 */
export class Notifier {
  readonly #hub: EventHub;
  readonly #targets: NotifyTargetOptions[];
  readonly #keys: string[];
  readonly #options: NotifierOptions;
  readonly #queues: Queued[][];
  readonly #queuedBytes: number[];
  readonly #running: Array<Promise<void> | undefined>;
  readonly #stop = new AbortController();
  #unsubscribe: (() => void) | undefined;

  constructor(hub: EventHub, targets: readonly NotifyTargetOptions[], options: NotifierOptions = {}) {
    this.#hub = hub;
    this.#targets = [...targets];
    this.#keys = claimKeys(this.#targets);
    this.#options = options;
    this.#queues = this.#targets.map(() => []);
    this.#queuedBytes = this.#targets.map(() => 0);
    this.#running = this.#targets.map(() => undefined);
  }

  /** Subscribes to the hub: events from now on. */
  async start(): Promise<void> {
    if (this.#targets.length === 0) return;
    this.#unsubscribe = await this.#hub.subscribe({
      send: (event) => {
        // written once, shared by every target that wants it
        let body: string | undefined;
        this.#targets.forEach((target, index) => notifyWants(target.events, event) && this.#enqueue(index, { event, body: (body ??= JSON.stringify(event)) }));
      },
      reset: () => undefined,
    });
  }

  /** Stops taking events and abandons retries still waiting (in-flight attempts end at their deadline). */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#stop.abort();
    await Promise.allSettled(this.#running.filter((running): running is Promise<void> => running !== undefined));
  }

  #enqueue(index: number, queued: Queued): void {
    const queue = this.#queues[index]!;
    queue.push(queued);
    this.#queuedBytes[index]! += queued.body.length;
    // a receiver that is down must not make the gateway hold what waits for it without bound, in events or in bytes
    while (queue.length > 1 && (queue.length > (this.#options.maxQueued ?? 1000) || this.#queuedBytes[index]! > (this.#options.maxQueuedBytes ?? 16 * 1024 * 1024))) {
      const dropped = this.#take(index);
      this.#options.failedForGood?.(this.#targets[index]!, dropped.event, 'dropped: the receiver fell too far behind');
    }
    this.#running[index] ??= this.#drain(index).finally(() => {
      this.#running[index] = undefined;
    });
  }

  async #drain(index: number): Promise<void> {
    const queue = this.#queues[index]!;
    const target = this.#targets[index]!;
    while (queue.length > 0 && !this.#stop.signal.aborted) {
      const queued = this.#take(index);
      // claimed when its turn comes, not when it is queued: an instance that dies leaves what it had not reached to the others
      if (await this.#claimed(index, queued.event)) await this.#deliver(target, queued);
    }
  }

  /** whether this instance sends the event to the target: its claim won, or no claim could be made */
  async #claimed(index: number, event: HldpEvent): Promise<boolean> {
    const { claim, skipped, claimFailed } = this.#options;
    if (!claim) return true;
    const target = this.#targets[index]!;
    try {
      if (await claim(event, this.#keys[index]!)) return true;
      skipped?.(target, event);
      return false;
    } catch (error) {
      claimFailed?.(target, event, error as Error);
      return true;
    }
  }

  #take(index: number): Queued {
    const queued = this.#queues[index]!.shift()!;
    this.#queuedBytes[index]! -= queued.body.length;
    return queued;
  }

  async #deliver(target: NotifyTargetOptions, { event, body }: Queued): Promise<void> {
    const signature = target.secret ? signBody(body, target.secret) : undefined;
    const attempts = this.#options.attempts ?? 6;
    let reason = '';
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      // the attempt's deadline covers the answer's body too: a receiver that streams without end is cut at it (review S, S1)
      const deadline = deadlineSignal(this.#options.timeoutMs ?? 10_000, this.#stop.signal);
      try {
        const response = await fetch(target.url, {
          method: 'POST',
          body,
          redirect: 'manual',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'brush-holder',
            'x-hldp-event': event.type,
            'x-hldp-delivery': String(event.id),
            'x-hldp-attempt': String(attempt),
            ...(signature ? { 'x-hldp-signature': signature, 'x-hub-signature-256': `sha256=${signature}` } : {}),
          },
          signal: deadline.signal,
        });
        // what a receiver answers is not read: at most a little of it, so that its connection can serve the next delivery
        await drainSome(response, ANSWER_READ_BYTES);
        if (response.status >= 200 && response.status < 300) {
          this.#options.delivered?.(target, event, attempt);
          return;
        }
        reason = `HTTP ${response.status}`;
        // a 4xx other than 408 and 429 will not change by asking again
        if (response.status < 500 && response.status !== 408 && response.status !== 429) break;
      } catch (error) {
        if (this.#stop.signal.aborted) return;
        reason = (error as Error).message;
      } finally {
        deadline.dispose();
      }
      if (attempt < attempts) {
        const base = (this.#options.backoffMs ?? 1000) * 2 ** (attempt - 1);
        const pause = base / 2 + Math.random() * (base / 2);
        // the timer's own abort handling removes its listener when the pause ends: a receiver down for hours adds none
        await sleep(pause, undefined, { signal: this.#stop.signal }).catch(() => undefined);
        if (this.#stop.signal.aborted) return;
      }
    }
    this.#options.failedForGood?.(target, event, reason);
  }
}

/** How much of a receiver's answer is read before its body is cancelled. */
const ANSWER_READ_BYTES = 64 * 1024;

/** Reads at most `most` bytes of an answer's body, then cancels the rest (its connection then closes). */
async function drainSome(response: Response, most: number): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  try {
    for (let read = 0; read <= most; ) {
      const next = await reader.read();
      if (next.done) return;
      read += next.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // a body cut by the deadline or the receiver: the status already said what the delivery came to
  }
}
