import { execFileSync } from 'node:child_process';

/** The seed every fast-check property of a run starts from, and where it came from (printed once at the start). */
export type FastCheckSeed = { seed: number; from: string };

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * The run's fast-check seed: `FC_SEED` when set, else the commit under test's short hash read as a number, so that a
 * local `CI=true .ci/run` on a commit generates exactly what the official CI generates on it, and a failure is re-run
 * with `FC_SEED=` its seed. Without a commit to read (an unpacked tarball), a random seed, said as such.
 */
export function fastCheckSeed(environment: NodeJS.ProcessEnv, root: string): FastCheckSeed {
  const given = environment.FC_SEED?.trim();
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    // fast-check folds any number to 32 bits; refuse what it would fold so that the printed seed is the one run
    if (!/^-?\d+$/.test(given) || seed < INT32_MIN || seed > INT32_MAX) {
      throw new Error(`FC_SEED=${given} is not a seed: give an integer between ${INT32_MIN} and ${INT32_MAX}, as a failure's report prints it`);
    }
    return { seed, from: 'FC_SEED' };
  }
  const commit = headCommit(root);
  if (commit === undefined) {
    return { seed: Math.floor(Math.random() * 2 ** 28), from: 'random: no git commit to derive it from' };
  }
  // seven hex digits, the short hash: a non-negative seed that names its commit
  return { seed: Number.parseInt(commit.slice(0, 7), 16), from: `commit ${commit.slice(0, 7)}` };
}

function headCommit(root: string): string | undefined {
  try {
    // a read only: a checkout another user owns (CI's, run as root) is refused as "dubious ownership" without it
    const out = execFileSync('git', ['-c', 'safe.directory=*', 'rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return /^[0-9a-f]{40,64}$/.test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}
