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
 * A suite that needs bubblewrap. Under CI it fails when bubblewrap cannot run (.ci/run installs it); elsewhere it is
 * skipped, and says plainly that it did not run and why.
 */
export function describeWithBubblewrap(name: string, suite: () => void): void {
  if (problem === undefined) {
    describe(name, suite);
  } else if (process.env.CI) {
    describe(name, () => {
      it('needs bubblewrap, which CI must install', () => {
        throw new Error(`${problem}; .ci/run installs it with apt-get when it is missing`);
      });
    });
  } else {
    console.warn(`NOT RUN: the sandbox tests of '${name}' need bubblewrap: ${problem}`);
    describe.skip(`${name} (NOT RUN: ${problem})`, suite);
  }
}

/** Gives a folder and all it holds to nobody (65534), whom a root gateway runs its tools as by default (sandbox.run_as). */
export async function giveToNobody(path: string): Promise<void> {
  await chown(path, 65534, 65534);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) await giveToNobody(join(path, entry.name));
    else if (!entry.isSymbolicLink()) await chown(join(path, entry.name), 65534, 65534);
  }
}
