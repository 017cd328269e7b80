import type { Probed } from './create-sandbox.js';
import type { LimitsStatus, SandboxStatus } from './sandbox.js';

const OFF_BY_CONFIG = "the configuration says 'sandbox: off': tools run unisolated, as this process's user, seeing what it sees (set sandbox: auto to isolate them)";

const SETUP_OPEN =
  'bubblewrap starts as before here, so a tool that swaps a folder of its workspace for a symbolic link while another call starts can have its setup make an empty folder or file anywhere on the host, as this gateway\'s user (README, Known limits); ' +
  'the wrapper needs perl (Debian\'s perl-base) and Linux 5.12 or later, on x86-64 or arm64';

function limitsStatus(probed: Probed, wanted: boolean, namespaced: boolean): LimitsStatus {
  if (!wanted) return { rlimits: false, processes: 'unenforced', reason: 'resource limits are not applied to these runs' };
  const cgroup = probed.cgroups?.ok === true;
  const processes = cgroup ? 'cgroup' : namespaced && !probed.root ? 'rlimit' : 'unenforced';
  const reasons: string[] = [];
  if (!probed.prlimit) reasons.push("util-linux's prlimit cannot run, so the memory, CPU-seconds and file-size limits are not enforced (install util-linux)");
  if (processes === 'unenforced') {
    const why = probed.root ? 'the kernel exempts root from RLIMIT_NPROC' : 'RLIMIT_NPROC would count every process of this user, the gateway included, without a user namespace';
    const cgroupWhy = probed.cgroups && !probed.cgroups.ok ? probed.cgroups.reason : 'no pids cgroup was tried';
    reasons.push(`the processes limit is not enforced: ${why}, and no pids cgroup can be made (${cgroupWhy}); give this process a writable pids cgroup (cgroup v2 delegation, or root with the pids controller mounted)`);
  }
  return { rlimits: probed.prlimit, processes, ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}) };
}

/** What holds on this host, from what the probes found. */
export function describeStatus(probed: Probed, limitsWanted: boolean): SandboxStatus {
  const on = probed.mode !== 'off' && probed.bubblewrap?.ok === true;
  const namespaced = on || probed.namespace.ok;
  const reason = on ? undefined : probed.mode === 'off' ? OFF_BY_CONFIG : probed.bubblewrap && !probed.bubblewrap.ok ? probed.bubblewrap.reason : 'bubblewrap was not probed';
  // closed, never open: bubblewrap runs, but without the filter a run would reach the host's unix sockets
  const seccompReason = on && probed.bubblewrap?.ok ? probed.bubblewrap.seccompFailure : undefined;
  // open, as before the wrapper, but never silently: the operator hears what a tool could do here, and the fix
  const readOnly = on && probed.bubblewrap?.ok ? probed.bubblewrap.hostReadOnly : undefined;
  const setupReason = readOnly?.ok === false ? `${readOnly.reason}. ${SETUP_OPEN}` : undefined;
  return {
    mode: probed.mode,
    sandbox: on ? 'on' : 'off',
    ...(reason ? { reason } : {}),
    containment: namespaced ? 'pid-namespace' : 'process-group',
    ...(namespaced || probed.namespace.ok
      ? !on && probed.namespace.ok && !probed.namespace.ownProc
        ? { containmentReason: "a run's PID namespace cannot mount a /proc of its own here, so a tool sees the host's: the processes, arguments and environments of other runs and of stdio MCP servers running as the same user (a root gateway's run_as), their secrets included; install bubblewrap" }
        : {}
      : {
          containmentReason:
            `no PID namespace can be made here (${probed.namespace.reason}), so a process that leaves its group (setsid, a double fork) can outlive its call; ` +
            'install bubblewrap, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or run as root',
        }),
    limits: limitsStatus(probed, limitsWanted, namespaced),
    // whom tools run as, not where their home is: /healthz says who, as before
    ...(probed.runAs ? { runAs: { uid: probed.runAs.uid, gid: probed.runAs.gid, ...(probed.runAs.name ? { name: probed.runAs.name } : {}) } } : {}),
    ...(probed.runAsFailure
      ? { runAsReason: probed.runAsFailure }
      : probed.root && probed.runAs === undefined
        ? { runAsReason: "sandbox.run_as is root: this root gateway's tools run as root, whom no file mode stops (set run_as to an unprivileged user, or leave it out for nobody)" }
        : {}),
    ...(seccompReason ? { seccompReason } : {}),
    ...(setupReason ? { setupReason } : {}),
  };
}

/** The sandbox as a gateway's or gatekeeper's /healthz reports it (to a token's holder): `state: off` with the reason when bubblewrap cannot run or is turned off. */
export function sandboxHealth(status: SandboxStatus): Record<string, unknown> {
  return {
    state: status.sandbox,
    mode: status.mode,
    ...(status.reason ? { reason: status.reason } : {}),
    containment: status.containment,
    ...(status.containmentReason ? { containment_reason: status.containmentReason } : {}),
    limits: { rlimits: status.limits.rlimits, processes: status.limits.processes, ...(status.limits.reason ? { reason: status.limits.reason } : {}) },
    ...(status.runAs ? { run_as: status.runAs } : {}),
    ...(status.runAsReason ? { run_as_reason: status.runAsReason } : {}),
    ...(status.seccompReason ? { seccomp_reason: status.seccompReason } : {}),
    ...(status.setupReason ? { setup_reason: status.setupReason } : {}),
  };
}
