import { closeSync, openSync } from 'node:fs';
import { lstat, readlink, stat } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, resolve } from 'node:path';
import { findProgram } from './find-program.js';
import { probeHostReadOnly, type HostReadOnly } from './host-read-only.js';
import { probeEnvironment, probeFailure, runProbe, type ProbeResult } from './probe-command.js';
import { openSeccompProgram, seccompRefusal } from './seccomp-descriptor.js';

/** bubblewrap as this host can run it, or why it cannot. */
export type Bubblewrap =
  | {
      ok: true;
      system: SystemMount[];
      path: string;
      /** whether it sizes a tmpfs (`--size`, bubblewrap ≥ 0.7) */
      tmpfsSize: boolean;
      /** whether it binds a source by descriptor (`--bind-fd`, `--ro-bind-fd`, bubblewrap ≥ 0.8) */
      bindFd: boolean;
      /** how bubblewrap is started where the host is read-only but the run's writable roots (host-read-only.ts), or why it cannot be */
      hostReadOnly?: HostReadOnly;
      /** why no run can get the sandbox's system-call filter here (`--seccomp`): then every sandboxed run is refused */
      seccompFailure?: string;
    }
  | { ok: false; reason: string };

/** One path of the read-only system: bound, or a symlink recreated (merged /usr: /bin → usr/bin). */
export type SystemMount = { path: string; symlink?: string };

/** The descriptor bubblewrap writes its JSON status to: `child-pid` once the sandbox exists, `exit-code` when the tool ends. */
export const STATUS_FD = 3;

export const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/**
 * The system's own program folders, searched before the gateway's PATH for what the gateway runs outside the sandbox;
 * `HLDP_HOST_PATH` names others (a host whose bubblewrap or util-linux lives elsewhere), searched in their place.
 */
const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(delimiter);

/**
 * The absolute path of a program the gateway runs on the host, outside any sandbox (sh, bwrap, unshare, setpriv,
 * prlimit): from the system's folders first, the gateway's PATH only for one installed elsewhere. A PATH folder a tool
 * can write (a project's node_modules/.bin under `npx hldp serve`, in the workspace) must never choose what runs on
 * the host: a planted `sh` there read every process's environment (review K, K1).
 */
export function hostProgram(name: string, path: string | undefined = process.env.PATH): string {
  const folders = process.env.HLDP_HOST_PATH || SYSTEM_PATH;
  // asked at every cold run (sh, prlimit): found once per name and folders, not stat'ed again each time
  const key = `${name}\0${folders}\0${path ?? ''}`;
  let found = hostPrograms.get(key);
  if (found === undefined) hostPrograms.set(key, (found = findProgram(name, folders, '/') ?? findProgram(name, path, '/') ?? name));
  return found;
}

const hostPrograms = new Map<string, string>();

// every namespace bubblewrap knows (user where it can, IPC, PID, network, UTS, cgroup), no capabilities, and the
// sandbox dies with bubblewrap, which dies with whoever started it; bubblewrap always sets no_new_privs
const ISOLATION = ['--unshare-all', '--die-with-parent', '--cap-drop', 'ALL'];

// a root gateway's runs drop to another user (sandbox.run_as) inside: bubblewrap run by root makes a user namespace
// mapping only uid 0 (onto the host's root), where no other uid exists to become, so they get every namespace but the
// user's, and their first process keeps only what becoming that user takes: it is setpriv, which bubblewrap starts
// with an empty environment, then none at all. Whatever enters the run's working directory (a waiting launcher's
// shell, `env -C`) runs after the drop, as that user: CAP_DAC_READ_SEARCH, kept for a shell that entered it before,
// let code loaded into setpriv open any file of the host by its handle (review O, O1)
const DROPPING = ['--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent', '--cap-drop', 'ALL', ...['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP'].flatMap((name) => ['--cap-add', name])];

/** The read-only system: the usual folders, and each PATH folder outside them, so every program on PATH can run. */
async function systemMounts(path: string | undefined): Promise<SystemMount[]> {
  const candidates = [...SYSTEM_FOLDERS];
  for (const folder of (path ?? '').split(delimiter)) {
    if (isAbsolute(folder) && !candidates.some((known) => folder === known || folder.startsWith(`${known}/`))) candidates.push(folder);
  }
  const mounts: SystemMount[] = [];
  for (const candidate of candidates) {
    const info = await lstat(candidate).catch(() => undefined);
    if (info?.isSymbolicLink()) mounts.push({ path: candidate, symlink: await readlink(candidate) });
    else if (info?.isDirectory()) mounts.push({ path: candidate });
  }
  return mounts;
}

/**
 * The arguments that show the system read-only, with a private /proc, /dev and /tmp; the /tmp holds at most
 * `tmpBytes` where given (a tmpfs is memory no rlimit counts: unsized, each run's was half the host's RAM, review K, K18).
 */
export function systemArguments(system: readonly SystemMount[], tmpBytes?: number, dropping = false): string[] {
  const args: string[] = [];
  for (const mount of system) {
    if (mount.symlink !== undefined) args.push('--symlink', mount.symlink, mount.path);
    else args.push('--ro-bind', mount.path, mount.path);
  }
  // /proc of this PID namespace only: the host's processes (and their environ) are out of sight; no /sys, whose dozen
  // submounts cost a few ms to bind at every run and show the host's devices (glibc counts CPUs from /proc without it)
  // bubblewrap makes the /tmp as root, 0755: a run that drops to another user needs it writable (1777, as a host's)
  args.push('--proc', '/proc', '--dev', '/dev', ...(dropping ? ['--perms', '1777'] : []), ...(tmpBytes === undefined ? [] : ['--size', String(tmpBytes)]), '--tmpfs', '/tmp');
  // bubblewrap covers /proc/sys only where access(W_OK) says the folder is writable: for root without capabilities the
  // folder (0555) says no while its files (0644, root's) still take writes, so a tool run by a root gateway changed the
  // host kernel's settings (kernel.core_pattern runs a program as the host's root). Shown read-only, always.
  args.push('--ro-bind', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger');
  return args;
}

/** The isolation flags every sandboxed run starts with; `dropping`: its tool is run as another user (`dropArguments`). */
export function isolationArguments(network: boolean, dropping = false): string[] {
  if (dropping) return network ? [...DROPPING] : [...DROPPING, '--unshare-net'];
  return network ? [...ISOLATION, '--share-net'] : [...ISOLATION];
}

function fixFor(reason: string): string {
  if (/ENOENT|not found/i.test(reason)) return 'install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';
  if (/make \/ slave|mount/i.test(reason)) {
    return "this host's mounts do not let bubblewrap set up a root (common inside containers): run the gateway on the host or in a container allowed to mount (for Docker, --security-opt seccomp=unconfined --security-opt apparmor=unconfined, or --privileged)";
  }
  if (/uid map|user namespace|namespace|RTM_NEWADDR|Operation not permitted|Permission denied/i.test(reason)) {
    return 'unprivileged user namespaces are restricted here: allow them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile that lets bwrap use them), or run the gateway as root';
  }
  return 'run the probe by hand to see why: bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev true';
}

/**
 * Runs bubblewrap once with the flags a sandboxed run uses, to see whether it works here and, if not, why. One
 * process: a `bwrap --version` before it told only that bubblewrap starts, which the trial's spawn tells too (~10 ms
 * of a server's CPU at start under load, issue #18).
 */
export async function probeBubblewrap(path: string | undefined = process.env.PATH, drop?: readonly string[]): Promise<Bubblewrap> {
  const system = await systemMounts(path);
  // its absolute path: a launcher starts with an empty environment, where no PATH would find it
  const bwrap = hostProgram('bwrap', path);
  const dropping = drop !== undefined;
  // a run that drops to another user is tried as one: the user is become inside, then `true` runs as it
  const tool = [...(drop ?? []), 'true'];
  // the real program every run gets (seccomp-filter.ts), where this architecture has one
  const unfiltered = seccompRefusal();
  const features: Features = { tmpfsSize: true, bindFd: true, seccomp: unfiltered === undefined };
  const readOnly = probeHostReadOnly(hostProgram('perl'), hostProgram('true'));
  const trial = await featureTrial(features, (fds) => {
    const bind = features.bindFd ? ['--ro-bind-fd', '3', '/tmp/hldp-bind-fd'] : [];
    const filter = features.seccomp ? ['--seccomp', '4'] : [];
    return runProbe(bwrap, [...isolationArguments(false, dropping), ...systemArguments(system, features.tmpfsSize ? 1 << 20 : undefined, dropping), ...bind, ...filter, '--', ...tool], probeEnvironment(), fds);
  });
  if (!trial.ok) {
    const why = probeFailure(trial);
    return { ok: false, reason: trial.started ? `bubblewrap cannot make a sandbox here: ${why}; ${fixFor(why)}` : `bubblewrap (bwrap) cannot be started: ${why}; ${fixFor(why)}` };
  }
  const seccompFailure = unfiltered ?? (features.refused === undefined ? undefined : `bubblewrap runs here, but the kernel refuses the sandbox's system-call filter (--seccomp: ${features.refused}), which keeps tools from the host's unix sockets, so no sandboxed tool runs (closed, never open); use a kernel with seccomp filters (CONFIG_SECCOMP_FILTER), or, knowing that tools then run unisolated, sandbox: off`);
  return { ok: true, system, path: bwrap, tmpfsSize: features.tmpfsSize, bindFd: features.bindFd, hostReadOnly: await readOnly, ...(seccompFailure ? { seccompFailure } : {}) };
}

/** What the probe's trial asks of bubblewrap, each turned off where it is refused; `refused`: the seccomp refusal. */
interface Features {
  tmpfsSize: boolean;
  bindFd: boolean;
  seccomp: boolean;
  refused?: string;
}

/**
 * The probe's trial, again without each feature this bubblewrap does not know, named by its refusal: an older than
 * 0.7 knows no --size (its runs' /tmp stay unsized, said in /healthz), one older than 0.8 no --ro-bind-fd (its runs
 * bind every source by path, held by the mount check alone), and without the seccomp program where it is refused (a
 * kernel without seccomp filters: the probe says so, and every sandboxed run is refused). `trial` gets a descriptor
 * to bind, /dev/null's (3), and the seccomp program's (4), new each time: bubblewrap reads it to its end.
 */
async function featureTrial(features: Features, trial: (fds: number[]) => Promise<ProbeResult>): Promise<ProbeResult> {
  const nul = openSync('/dev/null', 'r');
  const once = async (): Promise<ProbeResult> => {
    const program = features.seccomp ? openSeccompProgram(false) : undefined;
    try {
      return await trial(program === undefined ? [nul] : [nul, program]);
    } finally {
      if (program !== undefined) closeSync(program);
    }
  };
  try {
    let result = await once();
    for (let tries = 0; !result.ok && tries < 3; tries += 1) {
      if (features.tmpfsSize && /Unknown option --size/.test(result.stderr)) features.tmpfsSize = false;
      else if (features.bindFd && /Unknown option --ro-bind-fd/.test(result.stderr)) features.bindFd = false;
      else if (features.seccomp && /seccomp/i.test(result.stderr)) (features.seccomp = false), (features.refused = probeFailure(result));
      else break;
      result = await once();
    }
    return result;
  } finally {
    closeSync(nul);
  }
}

/** A failure that says nothing of the host for good: no memory or processes for a moment, the probe's deadline. */
const TRANSIENT = /Resource temporarily unavailable|EAGAIN|Cannot allocate memory|ENOMEM|killed by SIGKILL|Too many open files|EMFILE/i;

/**
 * `probe` again, a little later, while it fails for a reason that passes (review K, K4): `sandbox: auto` settles on
 * "off" for the gateway's whole life from its start's probe, so one failure under a moment's pressure (EAGAIN making
 * namespaces, the 10 s deadline on a loaded host) ran every tool unisolated until a restart. A lasting reason
 * (bubblewrap missing, user namespaces refused, mounts not allowed) is taken at once.
 */
export async function settledProbe(probe: () => Promise<Bubblewrap>, delaysMs: readonly number[] = [250, 1000, 3000]): Promise<Bubblewrap> {
  let probed = await probe();
  for (const delay of delaysMs) {
    if (probed.ok || !TRANSIENT.test(probed.reason)) return probed;
    await new Promise((resolve) => setTimeout(resolve, delay));
    probed = await probe();
  }
  return probed;
}

/** Where /etc/resolv.conf really is, when it links out of /etc (systemd-resolved): a tool with network needs it to resolve names. */
export async function resolverFolder(): Promise<string | undefined> {
  const target = await readlink('/etc/resolv.conf').catch(() => undefined);
  if (target === undefined) return undefined;
  const folder = dirname(resolve('/etc', target));
  return (await stat(folder).catch(() => undefined))?.isDirectory() ? folder : undefined;
}
