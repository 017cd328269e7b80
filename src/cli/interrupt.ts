/** What a CLI command running a call (`call`, `confirm`, `approvals approve`) does on Ctrl-C or SIGTERM. */
export interface Interrupt {
  /** aborted by the first SIGINT or SIGTERM: the call is cancelled, its receipt stored and printed */
  signal: AbortSignal;
  /** 130 after SIGINT, 143 after SIGTERM; undefined when none came */
  exitCode(): number | undefined;
  /** puts the default handling back */
  dispose(): void;
}

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Catches SIGINT and SIGTERM while a call runs: the first cancels the call (its process group is killed and the
 * CANCELLED receipt is stored, then printed, as `serve` does for its calls in flight), a second exits at once.
 * Before, the CLI died at the signal: the tool had run, but no receipt was stored and nothing was printed (review K, K12).
 * `says` is the line written on stderr at the first signal (`hldp mcp` catches its start's signals so too).
 */
export function catchInterrupt(says = (name: keyof typeof EXIT_CODES): string => `hldp: ${name}: cancelling the call and storing its receipt (${name === 'SIGINT' ? 'Ctrl-C' : 'a signal'} again exits at once)`): Interrupt {
  const controller = new AbortController();
  let received: keyof typeof EXIT_CODES | undefined;
  const on = (name: keyof typeof EXIT_CODES) => () => {
    if (received !== undefined) process.exit(EXIT_CODES[received]);
    received = name;
    process.stderr.write(`${says(name)}\n`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const handlers = { SIGINT: on('SIGINT'), SIGTERM: on('SIGTERM') };
  process.on('SIGINT', handlers.SIGINT);
  process.on('SIGTERM', handlers.SIGTERM);
  return {
    signal: controller.signal,
    exitCode: () => (received === undefined ? undefined : EXIT_CODES[received]),
    dispose: () => {
      process.off('SIGINT', handlers.SIGINT);
      process.off('SIGTERM', handlers.SIGTERM);
    },
  };
}

/**
 * Runs `work` (a command that runs a call under `signal`) with SIGINT and SIGTERM caught as `catchInterrupt` does;
 * its exit code, or 130 / 143 when a signal cancelled the call.
 */
export async function runInterruptible(work: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const interrupt = catchInterrupt();
  try {
    const code = await work(interrupt.signal);
    return interrupt.exitCode() ?? code;
  } finally {
    interrupt.dispose();
  }
}
