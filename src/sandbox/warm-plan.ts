import { randomBytes } from 'node:crypto';
import type { ToolSandbox } from '../core/index.js';
import { STATUS_FD, type Bubblewrap } from './bubblewrap.js';
import { bubblewrapArguments, type GuardedPaths } from './bubblewrap-arguments.js';
import { findProgram } from './find-program.js';
import { boundArguments } from './bind-descriptors.js';
import { finisher, unjudged, type LaunchHost } from './launch-command.js';
import { bubblewrapOutcome, initOutcome } from './launch-outcome.js';
import { closeScript, type LauncherPool } from './launcher-pool.js';
import { withHostReadOnly } from './host-read-only.js';
import { hostMountPlan, mountCheckScript } from './mount-check.js';
import type { Launch, LaunchEnding, LaunchOutcome, LaunchRequest } from './sandbox.js';
import { startWarm, type WarmCommand } from './warm-launch.js';

/**
 * A run started by a launcher that set its sandbox (or namespace) and cgroup up ahead of time, when this host has
 * one of those; undefined where it has neither (the cold path runs the program directly).
 */
export function warmLaunch(host: LaunchHost, pool: LauncherPool, request: LaunchRequest, policy: ToolSandbox, guarded: GuardedPaths): Launch | undefined {
  const limited = host.status.limits.rlimits;
  const cgroups = limited && host.probed.cgroups?.ok ? host.probed.cgroups.cgroups : undefined;
  // the run's secret, only in its script: its shell's line that the program never started holds it (review K, K9)
  const nonce = randomBytes(16).toString('hex');
  const run = { cwd: request.cwd, env: host.environment(request.env), nonce, ...(limited ? { limits: policy.limits, processes: host.status.limits.processes === 'rlimit' } : {}) };
  let command: WarmCommand;
  if (host.status.sandbox === 'on') {
    const bubblewrap = host.probed.bubblewrap as Extract<Bubblewrap, { ok: true }>;
    const workspace = host.realWorkspace(request.workspace);
    const args = bubblewrapArguments({ system: bubblewrap.system, workspace, policy, guarded, tmpfsSize: bubblewrap.tmpfsSize, dropping: host.drop !== undefined, ...(host.resolver ? { resolver: host.resolver } : {}) });
    // the drop comes first, before the launcher's shell: the shell, which reads the run's script and exports its
    // environment, is then no more than the tool (review O, O1: setpriv loaded the tool's LD_PRELOAD as root)
    // the host's TMPDIR is out of sight; the sandbox's own /tmp is private and writable
    const { runAs } = host.probed;
    // the script first checks the launcher's mounts against what these arguments ask for, with the host's mounts now
    // (review T, T1 and T2): a launcher started ahead of its run was set up before anyone could check it
    // its sources a tool could swap bound by descriptor: opened now for a launcher started now, again by one started
    // ahead of a later run
    const bound = boundArguments(bubblewrap, args, host.resolver);
    if (!bound.ok) return unjudged(bound.refusal);
    const plan = hostMountPlan(bound.args, bound.sources);
    if (plan.refusal !== undefined) return (bound.held.close(), unjudged(plan.refusal));
    const check = mountCheckScript(plan);
    command = { launcher: [...withHostReadOnly(bubblewrap.hostReadOnly, bound, [bubblewrap.path, ...bound.args]), ...(host.drop ?? [])], binds: { sources: bound.sources, held: bound.held }, workspace, statusFd: STATUS_FD, ...(host.drop && runAs ? { reader: { uid: runAs.uid, gid: runAs.gid } } : {}), seccomp: { unixSockets: policy.unix_sockets }, run: { ...run, check, env: { ...run.env, TMPDIR: '/tmp' }, argv: [request.file, ...request.args] } };
  } else if (host.probed.namespace.ok) {
    // a wrapper would report a missing program as its own failure: find it first, as spawn would
    const program = findProgram(request.file, request.env.PATH, request.cwd);
    if (program === undefined) return { ok: false, code: 'SPAWN_FAILED', message: `spawn ${request.file} ENOENT: no such program on PATH (${request.env.PATH ?? ''})` };
    // the namespace's init joins the run's cgroup, which only root may: it drops in the script, for the program alone
    command = { launcher: host.probed.namespace.launcher, workspace: request.workspace, run: { ...run, ...(host.drop ? { drop: host.drop } : {}), argv: [program, ...request.args], init: true } };
  } else return undefined;
  const started = startWarm(pool, command, cgroups, policy.limits.processes);
  if (!started.ok) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the processes limit cannot be set for this run: ${started.message}` };
  const { launcher, argv } = started;
  const read = (ending: LaunchEnding): Promise<LaunchOutcome> => (command.statusFd === undefined ? initOutcome(ending, nonce) : bubblewrapOutcome(ending, nonce));
  const finished = finisher(host, read, policy, launcher.cgroup);
  const finish = async (ending: LaunchEnding): Promise<LaunchOutcome> => {
    closeScript(launcher);
    const outcome = await finished(ending);
    started.replenish();
    return outcome;
  };
  return { ok: true, plan: { file: argv[0]!, args: argv.slice(1), cwd: command.workspace, env: {}, ...(command.statusFd === undefined ? {} : { statusFd: command.statusFd }), finish, started: launcher.child } };
}
