import { hostProgram } from './bubblewrap.js';
import { probeFailure, runProbe } from './probe-command.js';

/**
 * PID 1 of the namespace: it runs the tool as PID 2 (so the tool keeps the ordinary signal rules, which PID 1
 * does not have), waits for it and exits with its status. When PID 1 exits, the kernel kills every process left
 * in the namespace, whatever it did to leave its group or session (`setsid`, a double fork). Its own stderr goes
 * to /dev/null once the tool has started, so a job report ("Killed") never mixes into the tool's raw stderr.
 *
 * A shell gives a background job /dev/null as its stdin unless the job redirects it: the tool's stdin (the params
 * of a `stdin: json` tool) is handed on through descriptor 3, explicitly.
 */
const INIT_SCRIPT = 'exec 3<&0; "$@" 0<&3 3<&- & exec 2>/dev/null 3<&-; wait "$!"';

/**
 * A way to start a process in a PID namespace of its own, or why there is none. `ownProc`: the namespace mounts a
 * /proc of its own, so a run sees its own processes only — not, through the host's /proc, another run's or a stdio MCP
 * server's environment and memory where they run as the same user (review Z6, Z6-1).
 */
export type PidNamespace = { ok: true; launcher: string[]; ownProc: boolean } | { ok: false; reason: string };

/**
 * The command that runs `command` as PID 2 of a new namespace; `prelude` (shell statements: joining a cgroup,
 * setting limits) runs first in its init, before anything in the namespace forks.
 */
export function inNamespace(launcher: readonly string[], command: readonly string[], prelude?: string): string[] {
  return [...launcher, hostProgram('sh'), '-c', prelude ? `${prelude}\n${INIT_SCRIPT}` : INIT_SCRIPT, 'hldp-init', ...command];
}

// absolute paths: a launcher started ahead of its run has an empty environment, where no PATH would find them
const program = (name: string): string => hostProgram(name);

// a /proc of the namespace's own (util-linux mounts it in a mount namespace of its own, made private) first; where the
// host refuses that mount (a container whose /proc has masked paths), the namespace without it, said at start
const OWN_PROC = ['--mount', '--mount-proc'];

function candidates(): string[][] {
  const shared = ['--pid', '--fork', '--kill-child', '--'];
  const unshare = program('unshare');
  // root may make a PID namespace directly; anyone else needs a user namespace to own it
  const owners = process.getuid?.() === 0 ? [[]] : [['--user', '--map-current-user'], ['--user', '--map-root-user']];
  return [...owners.map((owner) => [unshare, ...owner, ...OWN_PROC, ...shared]), ...owners.map((owner) => [unshare, ...owner, ...shared])];
}

// under --map-root-user the tool is root of its user namespace and may unmount that /proc, finding the host's beneath
// (review Z7, Z7-2): only --map-current-user's, or root's without a user namespace, holds
const ownsProc = (launcher: readonly string[]): boolean => launcher.includes('--mount-proc') && !launcher.includes('--map-root-user');

/**
 * Finds how this host can start a process in a PID namespace with util-linux's `unshare` (kept alive only as long
 * as the gateway, through `setpriv --pdeathsig` where it exists), by starting one and checking the tool is PID 2.
 */
export async function probePidNamespace(): Promise<PidNamespace> {
  const deathSignal = (await runProbe(program('setpriv'), ['--pdeathsig', 'KILL', '--', 'true'])).ok ? DEATH_SIGNAL() : [];
  const failures: string[] = [];
  for (const candidate of candidates()) {
    const launcher = [...deathSignal, ...candidate];
    const [file, ...args] = inNamespace(launcher, [program('sh'), '-c', 'echo $$']);
    const result = await runProbe(file!, args);
    if (result.ok && result.stdout.trim() === '2') return { ok: true, launcher, ownProc: ownsProc(launcher) };
    failures.push(`${candidate.slice(0, -1).join(' ')}: ${result.ok ? `the tool was PID ${result.stdout.trim()}, not 2` : probeFailure(result)}`);
  }
  return { ok: false, reason: failures.join('; ') };
}

/** How runs are contained on this host: the PID namespace, and whether util-linux's prlimit can set their limits. */
export interface Containment {
  namespace: PidNamespace;
  prlimit: boolean;
}

/**
 * `probePidNamespace` and, when `limits` are wanted, whether `prlimit --nofile=64` runs, in one process where they
 * all work: setpriv, the first way of making a namespace and prlimit tried at once. Three processes a probe were
 * ~10 ms of a server's CPU each at start under load (issue #18). When that one fails, each is probed alone as before,
 * so that a host without setpriv or prlimit is told apart from one without namespaces.
 */
export async function probeContainment(limits: boolean): Promise<Containment> {
  const launcher = [...DEATH_SIGNAL(), ...candidates()[0]!];
  const tool = limits ? [program('prlimit'), '--nofile=64', '--', program('sh'), '-c', 'echo $$'] : [program('sh'), '-c', 'echo $$'];
  const [file, ...args] = inNamespace(launcher, tool);
  const result = await runProbe(file!, args);
  if (result.ok && result.stdout.trim() === '2') return { namespace: { ok: true, launcher, ownProc: ownsProc(launcher) }, prlimit: limits };
  const [namespace, prlimit] = await Promise.all([probePidNamespace(), limits ? runProbe(program('prlimit'), ['--nofile=64', '--', 'true']).then((alone) => alone.ok) : false]);
  return { namespace, prlimit };
}

const DEATH_SIGNAL = (): string[] => [program('setpriv'), '--pdeathsig', 'KILL', '--'];
