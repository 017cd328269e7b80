import { spawnSync } from 'node:child_process';
import { chown, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';

/** Why bubblewrap cannot make a sandbox on this machine, or undefined when it can (checked once, as the gateway's probe does). */
function bubblewrapProblem(): string | undefined {
  const trial = spawnSync('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'], { encoding: 'utf8' });
  if (trial.error) return `bwrap cannot be started (${trial.error.message}); install bubblewrap (apt-get install bubblewrap)`;
  if (trial.status !== 0) return `bwrap cannot make a sandbox here: ${trial.stderr.trim() || `exit code ${trial.status}`}`;
  return undefined;
}

const problem = bubblewrapProblem();

/**
 * A suite that cannot run here (`problem`, and what provides the part under CI: `provided`): under CI it fails, since
 * .ci/run provides every part a suite needs; elsewhere it is skipped, and says plainly that it did not run and why.
 */
function notRunnable(name: string, problem: string, provided: string, suite: () => void): void {
  if (process.env.CI) {
    describe(name, () => {
      it(`cannot run: ${problem}`, () => {
        throw new Error(`${problem}; under CI ${provided}`);
      });
    });
  } else {
    console.warn(`NOT RUN: the sandbox tests of '${name}': ${problem}`);
    describe.skip(`${name} (NOT RUN: ${problem})`, suite);
  }
}

/** A suite that needs bubblewrap: under CI it fails when bubblewrap cannot run (.ci/run installs it), elsewhere it is skipped. */
export function describeWithBubblewrap(name: string, suite: () => void): void {
  if (problem === undefined) describe(name, suite);
  else notRunnable(name, problem, '.ci/run installs it with apt-get when it is missing', suite);
}

/** What a suite needs besides bubblewrap, as `describeNeeding` reads it: the part, present or not. */
export interface Part {
  /** what it is, for the message: `root`, `a uid-1000 user with a home folder`, `/usr/bin/python3` */
  part: string;
  present: boolean;
  /** how CI provides it: .ci/run runs as root, makes the user, installs the program */
  provided: string;
}

/**
 * A suite that needs bubblewrap and each of `parts`: under CI a missing one fails it (.ci/run provides each), elsewhere
 * it is skipped, saying which is missing.
 */
export function describeNeeding(parts: readonly Part[], name: string, suite: () => void): void {
  const missing = parts.filter((part) => !part.present);
  if (missing.length === 0) describeWithBubblewrap(name, suite);
  else notRunnable(name, `needs ${missing.map((part) => part.part).join(' and ')}`, missing.map((part) => part.provided).join('; '), suite);
}

/** The part every root-gateway suite needs: CI runs as root. */
export const ROOT: Part = { part: 'root', present: process.getuid?.() === 0, provided: 'CI runs as root (.ci/run is run so)' };

/** Gives a folder and all it holds to nobody (65534), whom a root gateway runs its tools as by default (sandbox.run_as). */
export async function giveToNobody(path: string): Promise<void> {
  await chown(path, 65534, 65534);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) await giveToNobody(join(path, entry.name));
    else if (!entry.isSymbolicLink()) await chown(join(path, entry.name), 65534, 65534);
  }
}
