import { catchInterrupt, type Interrupt } from './interrupt.js';

type Signal = 'SIGINT' | 'SIGTERM';

/** SIGINT and SIGTERM caught while a service (`hldp serve`, `hldp mcp`) starts. */
export interface StartSignals extends Interrupt {
  /** the first signal caught, if one came */
  received(): Signal | undefined;
  /**
   * After a signal: writes that the service stopped while starting — `scan`: its first scan was stopped, nothing
   * opened; `start`: its start was done, then the gateway closed unserved — and gives 130 (SIGINT) or 143 (SIGTERM).
   * Undefined when no signal came.
   */
  stopped(stage: 'scan' | 'start'): number | undefined;
}

/**
 * Catches SIGINT and SIGTERM from a service's first line (`command` is how its lines begin): the first aborts `signal`,
 * which stops the first scan (a remote's fetch dropped, a folder's or a local repository's files no longer read), and
 * the rest of the start is let finish, then the gateway closed unserved; a second exits at once. Both services exit
 * 130 / 143 either way: serve exited 0 on a signal after its first scan, mcp 143 (fixm25's note).
 */
export function catchStartSignals(command: string, onSignal?: (signal: Signal) => void): StartSignals {
  let received: Signal | undefined;
  const interrupt = catchInterrupt((signal) => {
    received = signal;
    onSignal?.(signal);
    return `${command}: ${signal} while starting: the gateway stops as soon as its start is done, its first scan at once (${signal} again exits at once)`;
  });
  return {
    ...interrupt,
    received: () => received,
    stopped(stage) {
      if (received === undefined) return undefined;
      const what = stage === 'scan' ? 'the first scan was stopped, nothing was served' : 'the gateway was closed before it served';
      process.stderr.write(`${command}: stopped while starting (${received}): ${what}\n`);
      return interrupt.exitCode();
    },
  };
}
