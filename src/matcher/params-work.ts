/**
 * The work one validation of a call's params may do on the event loop, in units of about one step of RE2's NFA (one
 * live thread over one character) or one keyword applied to one value: past it the call is refused. Linear time is not
 * enough: `a[ab]{999}c` keeps ~1,000 threads alive per character, so one 300 KB param held /healthz 21 s (review X,
 * X1), and `items: {allOf: [2,000 checks]}` applied each to 50,000 items held it 29 s (X2). At ~10-70 ns a unit
 * (measured at load 15, bench/HISTORY.md) this bound is a few hundred milliseconds of one core at worst.
 */
export const MAX_PARAMS_WORK = 10_000_000;

/** Thrown out of ajv's validator when a call's params would take more work than MAX_PARAMS_WORK. */
export class ParamsTooCostly extends Error {
  constructor(
    /** the parameter whose check passed the bound (a dotted path; empty for the params object itself) */
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

interface Meter {
  spent: number;
  limit: number;
}

// validation is synchronous (no async keywords): the one meter of the validation running now, if any
let current: Meter | undefined;
let lastSpent = 0;

/** The units the last metered validation to finish spent (bench/params/work-per-kind.ts sizes its calls by it). */
export function lastWork(): number {
  return lastSpent;
}

/** Runs `validate` with a fresh budget of `limit` units; ParamsTooCostly leaves it when the budget is spent. */
export function metered<T>(validate: () => T, limit = MAX_PARAMS_WORK): T {
  const outer = current;
  current = { spent: 0, limit };
  try {
    return validate();
  } finally {
    lastSpent = current.spent;
    current = outer;
  }
}

/**
 * Counts `units` of work about to be done on the value at `instancePath` (ajv's JSON pointer) against the running
 * validation's budget, before it is done; outside a metered validation (the scanner's checks of a schema) it is free.
 */
export function charge(units: number, instancePath: string, what: () => string): void {
  if (current === undefined) return;
  current.spent += units;
  if (current.spent <= current.limit) return;
  const param = paramOf(instancePath);
  throw new ParamsTooCostly(param, `is too costly to check: ${what()} would take more than the ${current.limit.toLocaleString('en-US')} units of work one call's params may take on the gateway; send a shorter value`);
}

/** A JSON pointer as the dotted parameter path the gateway's answers use. */
export function paramOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
