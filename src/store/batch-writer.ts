/** How a batch came out, item by item: `undefined` stored, an Error refused (that item alone). */
export type BatchOutcome = Array<Error | undefined>;

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Writes items one batch at a time: while a batch is being written, new items queue, and the next batch takes
 * them all (up to `maxItems`). Each append resolves once its own batch is durable. One commit (one fsync, one
 * chain-head update) then serves many concurrent calls, and a chain is extended by exactly one writer at a time.
 */
export class BatchWriter<T> {
  readonly #write: (items: T[]) => Promise<BatchOutcome>;
  readonly #maxItems: number;
  readonly #queue: Array<Pending<T>> = [];
  #running: Promise<void> | undefined;

  constructor(write: (items: T[]) => Promise<BatchOutcome>, options: { maxItems?: number } = {}) {
    this.#write = write;
    this.#maxItems = options.maxItems ?? 256;
  }

  /** queues `item`; resolves when it is stored, rejects with why it was not */
  append(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#running) this.#start();
    });
  }

  /** resolves when everything queued so far was written or refused */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #start(): void {
    this.#running = this.#drain().finally(() => {
      this.#running = undefined;
      // an item appended after the loop saw an empty queue, but before this ran
      if (this.#queue.length > 0) this.#start();
    });
  }

  async #drain(): Promise<void> {
    // let the calls finishing in this turn of the event loop join the first batch
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxItems);
      let outcome: BatchOutcome;
      try {
        outcome = await this.#write(batch.map((pending) => pending.item));
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const pending of batch) pending.reject(failure);
        continue;
      }
      batch.forEach((pending, index) => {
        const refusal = outcome[index];
        if (refusal) pending.reject(refusal);
        else pending.resolve();
      });
    }
  }
}
