import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type { ResourceLimits, ToolSandbox } from '../core/index.js';
import { boundArguments, type HeldDescriptors } from './bind-descriptors.js';
import { hostProgram, type Bubblewrap } from './bubblewrap.js';
import { bubblewrapArguments, type GuardedPaths } from './bubblewrap-arguments.js';
import type { Probed } from './create-sandbox.js';
import { findProgram } from './find-program.js';
import { withHostReadOnly } from './host-read-only.js';
import { bubblewrapOutcome, directOutcome, initOutcome } from './launch-outcome.js';
import { hostMountPlan, mountCheckScript } from './mount-check.js';
import type { PassedDescriptor } from './passed-descriptors.js';
import { inNamespace } from './pid-namespace.js';
import type { RunCgroup } from './pids-cgroup.js';
import { limitHit, limitsPrelude, prlimitArguments, shellWord } from './resource-limits.js';
import { openSeccompProgram, SECCOMP_FD } from './seccomp-descriptor.js';
import type { Launch, LaunchEnding, LaunchOutcome, LaunchRequest, SandboxStatus } from './sandbox.js';
import { withEnvironment } from './tool-environment.js';
import { notStartedLine } from './warm-script.js';

/** What a launch reads of its sandbox as it is now: the probes, the status, the drop to `run_as`, the resolver folder. */
export interface LaunchHost {
  readonly probed: Probed;
  readonly status: SandboxStatus;
  /** setpriv's command that becomes `run_as` before the tool, for a root gateway's runs */
  readonly drop: string[] | undefined;
  readonly resolver: string | undefined;
  /** the run's environment (trusting every repository to git where the run becomes `run_as`) */
  environment(env: Record<string, string>): Record<string, string>;
  /** the workspace's real path, resolved once */
  realWorkspace(path: string): string;
}

/** A command line to spawn and how to read its end, or why there is none. */
export type Command = { ok: true; argv: string[]; env: Record<string, string>; read: (ending: LaunchEnding) => Promise<LaunchOutcome>; held?: HeldDescriptors; passed?: PassedDescriptor[] } | { ok: false; refusal: Launch };

/** How a run's limits are set: the cgroup it joins and the shell statements that join it, or prlimit's arguments. */
export type RunLimits = { ok: true; cgroup?: RunCgroup; prelude?: string; prlimit: string[] } | { ok: false; refusal: Launch };

/** How a run ends: its outcome read, its cgroup released, and the limit it hit named. */
export function finisher(host: LaunchHost, read: (ending: LaunchEnding) => Promise<LaunchOutcome>, policy: ToolSandbox, cgroup: RunCgroup | undefined): (ending: LaunchEnding) => Promise<LaunchOutcome> {
  return async (ending) => {
    const outcome = await read(ending);
    const refusedForks = cgroup?.refusals();
    // its processes are gone (the namespace died with the run): removing it need not hold up the receipt
    void cgroup?.release();
    if (!host.status.limits.rlimits || outcome.failure) return outcome;
    const hit = limitHit({ exitCode: outcome.exitCode, signal: outcome.signal, stderr: ending.stderr, stopped: ending.stopped, refusedForks }, policy.limits);
    return hit ? { ...outcome, resourceLimit: hit } : outcome;
  };
}

/**
 * How this run's limits are set: with a pids cgroup, by shell statements in a shell the run starts anyway (they
 * join the cgroup and call ulimit); without one, by prlimit, which then runs the tool (and sets RLIMIT_NPROC).
 */
export function runLimits(host: LaunchHost, limits: ResourceLimits): RunLimits {
  if (!host.status.limits.rlimits) return { ok: true, prlimit: [] };
  const { cgroups } = host.probed;
  if (!cgroups?.ok) return { ok: true, prlimit: prlimitArguments(limits, host.status.limits.processes === 'rlimit') };
  try {
    const cgroup = cgroups.cgroups.create(limits.processes);
    return { ok: true, cgroup, prelude: limitsPrelude(cgroup.procs, limits), prlimit: [] };
  } catch (error) {
    // fail closed: the limit the probe promised cannot be set for this run
    return { ok: false, refusal: { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the processes limit cannot be set for this run: ${(error as Error).message}` } };
  }
}

/** bubblewrap, behind the limits' shell when there is one. */
export function sandboxedCommand(host: LaunchHost, request: LaunchRequest, policy: ToolSandbox, guarded: GuardedPaths, limits: { prelude?: string; prlimit: string[] }): Command {
  const bubblewrap = host.probed.bubblewrap as Extract<Bubblewrap, { ok: true }>;
  const workspace = host.realWorkspace(request.workspace);
  // a run that drops enters its working directory after the drop (`env -C`): bubblewrap, as root without
  // CAP_DAC_READ_SEARCH, could not enter one its user keeps to itself (0700)
  const dropping = host.drop !== undefined;
  const shown = request.ownCwd ? { shownFolder: realFolder(request.cwd) } : {};
  const args = bubblewrapArguments({ system: bubblewrap.system, workspace, ...(dropping ? {} : { cwd: request.cwd }), ...shown, policy, guarded, tmpfsSize: bubblewrap.tmpfsSize, dropping, ...(host.resolver ? { resolver: host.resolver } : {}) });
  // the host's TMPDIR is out of sight; the sandbox's own /tmp is private and writable
  const tool = withEnvironment({ ...host.environment(request.env), TMPDIR: '/tmp' }, [request.file, ...request.args], dropping ? request.cwd : undefined);
  // both by absolute path: the gateway's PATH may hold a folder tools can write (review K, K1)
  // the run's first process checks that its mounts are the ones asked for, before anything of the tool's runs (review
  // T, T1 and T2); its failure is told by a line with the run's secret, which the tool never sees
  const nonce = randomBytes(16).toString('hex');
  const marker = notStartedLine(nonce);
  // the sources a tool could swap are opened now and bound by descriptor; the plan is made after, from the same paths
  const bound = boundArguments(bubblewrap, args, host.resolver);
  if (!bound.ok) return { ok: false, refusal: unjudged(bound.refusal) };
  const plan = hostMountPlan(bound.args, bound.sources);
  if (plan.refusal !== undefined) {
    bound.held.close();
    return { ok: false, refusal: unjudged(plan.refusal) };
  }
  const check = mountCheckScript(plan, `echo ${shellWord(marker)} >&2; `);
  // bubblewrap's setup cannot make a folder or file on the host through a tool's symlink: the host is read-only to it
  const inside = [...withHostReadOnly(bubblewrap.hostReadOnly, bound, [bubblewrap.path, ...bound.args]), '/bin/sh', '-c', `${check}\nexec "$@"`, 'hldp-sandbox', ...(host.drop ?? []), ...limits.prlimit, ...tool];
  const argv = limits.prelude ? [hostProgram('sh'), '-c', `${limits.prelude}\nexec "$@"`, 'hldp-limits', ...inside] : inside;
  // the host's sh and bubblewrap, and setpriv, get none of the run's environment: only the tool does (review O, O2)
  const read = (ending: LaunchEnding): Promise<LaunchOutcome> => bubblewrapOutcome(ending, ending.stderr.split('\n').includes(marker) ? nonce : undefined);
  // the seccomp program opened last, once nothing can refuse the run: the caller closes it once bubblewrap is spawned
  return { ok: true, argv, env: {}, read, held: bound.held, passed: [{ at: SECCOMP_FD, fd: openSeccompProgram(policy.unix_sockets) }] };
}

/** A launch refused because its sandbox would not be the one judged: `why`, a bind's source. */
export function unjudged(why: string): Launch {
  return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the sandbox cannot be set up as judged, so the tool did not run: ${why}` };
}

/** No sandbox: the PID namespace (unshare) where there is one, the limits, the program itself. */
export function containedCommand(host: LaunchHost, request: LaunchRequest, limits: { prelude?: string; prlimit: string[] }): Command {
  // a wrapper would report a missing program as its own failure: find it first, as spawn would
  const program = findProgram(request.file, request.env.PATH, request.cwd);
  if (program === undefined) return { ok: false, refusal: { ok: false, code: 'SPAWN_FAILED', message: `spawn ${request.file} ENOENT: no such program on PATH (${request.env.PATH ?? ''})` } };
  const { namespace } = host.probed;
  const env = host.environment(request.env);
  // nothing to set up: the program itself, as spawn would start it
  if (!namespace.ok && !limits.prelude && limits.prlimit.length === 0 && host.drop === undefined) return { ok: true, argv: [program, ...request.args], env, read: directOutcome };
  // the host's setpriv, unshare, sh and prlimit get none of the run's environment: only the tool does (review O, O2)
  const tool = [...(host.drop ?? []), ...limits.prlimit, ...withEnvironment(env, [program, ...request.args])];
  if (namespace.ok) return { ok: true, argv: inNamespace(namespace.launcher, tool, limits.prelude), env: {}, read: initOutcome };
  const argv = limits.prelude ? [hostProgram('sh'), '-c', `${limits.prelude}\nexec "$@"`, 'hldp-limits', ...tool] : tool;
  return { ok: true, argv, env: {}, read: directOutcome };
}

/** A folder's real path (bubblewrap binds real paths), or the path as given when it cannot be resolved. */
function realFolder(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
