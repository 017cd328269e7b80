/**
 * How many times over each fast-check property of a run runs: `HLDP_PROPERTY_RUNS` (a whole factor, 1 by default), so
 * that a search for counterexamples runs every property at 10 × its runs (`HLDP_PROPERTY_RUNS=10 npx vitest run test/…`)
 * without editing a file, and the default suite runs exactly the runs each property names.
 */
const MOST = 1000;

/** The factor `HLDP_PROPERTY_RUNS` gives; an error saying what it takes when it is not a whole number from 1 to 1000. */
export function propertyRunsFactor(environment: NodeJS.ProcessEnv): number {
  const given = environment.HLDP_PROPERTY_RUNS?.trim();
  if (given === undefined || given === '') return 1;
  const factor = Number(given);
  if (!/^\d+$/.test(given) || factor < 1 || factor > MOST) {
    throw new Error(`HLDP_PROPERTY_RUNS=${given} is not a factor: give a whole number from 1 to ${MOST}, the times over each property runs`);
  }
  return factor;
}

const factor = propertyRunsFactor(process.env);

/** A property's `numRuns`: the runs it names, times `HLDP_PROPERTY_RUNS`. */
export function runs(named: number): number {
  return named * factor;
}

/** A property's test timeout (a guard against a hang), stretched as its runs are: the runs it was sized for take that much longer. */
export function propertyTimeout(milliseconds: number): number {
  return milliseconds * factor;
}
