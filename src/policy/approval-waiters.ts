/** The callers waiting in this process for a request to be decided, woken when it is (or when the desk stops). */
export class ApprovalWaiters {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Waits up to `ms` for request `id` to be woken, or `signal` to abort. */
  nap(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(id);
      if (!set) this.#waiters.set(id, (set = new Set()));
      const wake = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        set.delete(wake);
        if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      signal?.addEventListener('abort', wake, { once: true });
      set.add(wake);
    });
  }

  /** Wakes everyone waiting for request `id`. */
  wake(id: string): void {
    for (const wake of this.#waiters.get(id) ?? []) wake();
  }

  /** Wakes every waiter. */
  wakeAll(): void {
    for (const wake of [...this.#waiters.values()].flatMap((set) => [...set])) wake();
  }
}
