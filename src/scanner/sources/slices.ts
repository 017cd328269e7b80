import { letGo, SLICE_MS } from '../../core/index.js';

/**
 * The indexer's turns on the event loop: indexing a 100,000-tool clone's pack is ~5 s of CPU, and a server's every
 * 64th fetch starts a clone over, so it lets requests and timers (the clone lock's refresh among them) run every `SLICE_MS`.
 */
export class Slices {
  private start = performance.now();

  due(): boolean {
    return performance.now() - this.start >= SLICE_MS;
  }

  async letGo(): Promise<void> {
    await letGo();
    this.start = performance.now();
  }
}
