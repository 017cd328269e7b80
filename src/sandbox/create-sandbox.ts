import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { ceilingDefaults, ceilingProblems, resolveToolSandbox, type ResourceLimits, type SandboxCeiling, type ToolSandbox } from '../core/index.js';
import { hostProgram, probeBubblewrap, resolverFolder, settledProbe, STATUS_FD, type Bubblewrap } from './bubblewrap.js';
import { bubblewrapArguments, guardedConflict, hostConflict, realDeclaredPath, workspaceConflict, type GuardedPaths } from './bubblewrap-arguments.js';
import { findProgram } from './find-program.js';
import { mergeGuards, writableRootsGuards } from './workspace-rules.js';
import { expandPatterns, hostSecrets, secretPatterns } from './host-secrets.js';
import { bubblewrapOutcome, directOutcome, initOutcome } from './launch-outcome.js';
import { probeFailure, runProbe } from './probe-command.js';
import { describeRunAs, dropArguments, giveWorkspace, resolveRunAs, type RunAs, type RunAsSetting } from './run-as.js';
import { RunAsFiles } from './run-as-files.js';
import { inNamespace, probeContainment, type PidNamespace } from './pid-namespace.js';
import { probePidsCgroups, type PidsCgroupProbe, type RunCgroup } from './pids-cgroup.js';
import { limitHit, limitsPrelude, prlimitArguments } from './resource-limits.js';
import { closeScript, LauncherPool } from './launcher-pool.js';
import { scriptFolder, startWarm, type WarmCommand } from './warm-launch.js';
import { environmentProblem, withEnvironment } from './tool-environment.js';
import { exportable } from './warm-script.js';
import type { FileAccess, Launch, LaunchEnding, LaunchOutcome, LaunchRequest, Sandbox, SandboxMode, SandboxStatus } from './sandbox.js';
import { describeStatus } from './sandbox-status.js';

/** How to build a sandbox. */
export interface SandboxOptions {
  mode: SandboxMode;
  /**
   * paths no tool may see: the gateway's cache, data directory, receipts database and its journal files, config file,
   * and what the operator lists (`sandbox.hide`); a root gateway adds the host's secrets (see `hostSecrets`)
   */
  hide?: readonly string[];
  /** names with a `*` (`/etc/ssh/*_key`) whose matches are hidden too, looked for again at every launch */
  hidePatterns?: readonly string[];
  /** paths tools may read but never change: the tools repository */
  protect?: readonly string[];
  /** whether the declared resource limits apply; default true */
  limits?: boolean;
  /** how many launchers wait, set up, for the next runs of each command line (default 2; 0: each run starts its own) */
  waitingLaunchers?: number;
  /** the most a tool's declared sandbox may ask for (`sandbox.ceiling`); a request beyond it is refused */
  ceiling?: SandboxCeiling;
  /** hears the sandbox's status when a later probe changed it (a `required` sandbox that could not run at start and now can) */
  onStatusChange?: (status: SandboxStatus) => void;
  /**
   * who a root gateway's tools run as (`sandbox.run_as`): a user's name or {uid, gid}; default `nobody`; `root` (or
   * uid 0) runs them as root. Not root, this process's user is the only one they can run as, and this is ignored
   */
  runAs?: RunAsSetting;
  /** hears what the sandbox changed on the host (a root-owned workspace given to the `run_as` user) */
  onNotice?: (message: string) => void;
}

/** How long a `required` sandbox that cannot run waits between two probes made for the calls it refuses. */
const REPROBE_INTERVAL_MS = 1000;

/** What the probes found, from which a sandbox is made. */
export interface Probed {
  mode: SandboxMode;
  bubblewrap: Bubblewrap | undefined;
  namespace: PidNamespace;
  prlimit: boolean;
  cgroups: PidsCgroupProbe | undefined;
  root: boolean;
  /** the user every tool becomes (a root gateway's `sandbox.run_as`); none: it runs as this process's user */
  runAs?: RunAs;
  /** why a root gateway cannot make its tools another user: every local call is refused with it */
  runAsFailure?: string;
}

class HostSandbox implements Sandbox {
  private current: SandboxStatus;
  private readonly guarded: GuardedPaths;
  private probedAt = Date.now();
  private probing: Promise<void> | undefined;

  constructor(
    private probed: Probed,
    private readonly options: SandboxOptions,
    private readonly resolver: string | undefined,
  ) {
    this.current = describeStatus(probed, options.limits !== false);
    this.guarded = { hide: options.hide ?? [], protect: options.protect ?? [] };
    this.pool = new LauncherPool(options.waitingLaunchers);
    this.drop = probed.runAs ? dropArguments(probed.runAs) : undefined;
  }

  /** setpriv's command that becomes `run_as` before the tool, for a root gateway's runs */
  private readonly drop: string[] | undefined;

  /**
   * The run's environment; a run that becomes `run_as` also trusts every repository to git (`safe.directory=*`, as
   * command-line configuration, which git honours for it): git refuses one another user owns ("dubious ownership"),
   * so the git tools of a root gateway failed in a workspace root made. Its config and hooks are read-only in the
   * sandbox, and what they would run, runs as the same unprivileged user as the tool.
   */
  private environment(env: Record<string, string>): Record<string, string> {
    if (this.drop === undefined || env.GIT_CONFIG_COUNT !== undefined) return env;
    return { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' };
  }

  /** the workspaces already checked (and given to `run_as` where root owned them) */
  private readonly given = new Set<string>();

  /**
   * A root-owned workspace is given to the user tools run as, once: they could not write in it otherwise. Only one
   * judged fit for tools (`refusal` undefined), whatever the sandbox's mode: a refused one (the tools repository, a
   * folder holding /etc) was given away before it was refused (review O, O4), and is left as it is, said once.
   */
  private giveWorkspace(workspace: string, refusal: string | undefined): void {
    const { runAs } = this.probed;
    if (runAs === undefined || this.given.has(workspace)) return;
    this.given.add(workspace);
    if (refusal !== undefined) {
      this.options.onNotice?.(`the workspace ${workspace} is not given to ${describeRunAs(runAs)}, whom this root gateway runs its tools as, and keeps its owner: ${refusal}`);
      return;
    }
    try {
      const done = giveWorkspace(workspace, runAs);
      if (done) this.options.onNotice?.(done);
    } catch (error) {
      this.options.onNotice?.(`the workspace ${workspace} cannot be given to ${describeRunAs(runAs)}, whom this root gateway runs its tools as, so they may not write in it: ${(error as Error).message}`);
    }
  }

  get status(): SandboxStatus {
    return this.current;
  }

  /**
   * Probes bubblewrap again, at most once a second and once at a time, for a `required` sandbox that could not run
   * (review K, S6): one failure at start (EAGAIN making namespaces, the probe's deadline on a loaded host) beyond the
   * start's own retries refused every local call until a restart. It only ever turns the sandbox on.
   */
  private reprobe(): Promise<void> {
    if (this.probing === undefined && Date.now() - this.probedAt >= REPROBE_INTERVAL_MS) {
      this.probing = probeBubblewrap(undefined, this.drop)
        .then((bubblewrap) => {
          if (!bubblewrap.ok || this.current.sandbox === 'on') return;
          this.probed = { ...this.probed, bubblewrap };
          this.current = describeStatus(this.probed, this.options.limits !== false);
          this.options.onStatusChange?.(this.current);
        })
        .catch(() => undefined)
        .finally(() => {
          this.probedAt = Date.now();
          this.probing = undefined;
        });
    }
    return this.probing ?? Promise.resolve();
  }

  get hidden(): readonly string[] {
    return this.guardedNow().hide;
  }

  get readOnly(): readonly string[] {
    return this.guarded.protect;
  }

  /** The guarded paths of one launch: the patterns' matches as they are now (a key made after the start too; review M, M2). */
  private guardedNow(): GuardedPaths {
    const patterns = this.options.hidePatterns ?? [];
    return patterns.length === 0 ? this.guarded : { hide: [...this.guarded.hide, ...expandPatterns(patterns)], protect: this.guarded.protect };
  }

  private readonly workspaces = new Map<string, string>();

  private realWorkspace(path: string): string {
    let real = this.workspaces.get(path);
    if (real === undefined) {
      try {
        real = realpathSync(path);
      } catch {
        real = path;
      }
      this.workspaces.set(path, real);
    }
    return real;
  }

  async launch(request: LaunchRequest): Promise<Launch> {
    if (this.status.mode === 'required' && this.status.sandbox === 'off') await this.reprobe();
    if (this.status.mode === 'required' && this.status.sandbox === 'off') {
      return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the gateway's sandbox is 'required', but it cannot run here, so no local tool runs: ${this.status.reason}` };
    }
    // fail closed: a root gateway that cannot make a tool another user does not run it as root instead
    if (this.probed.runAsFailure !== undefined) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: this.probed.runAsFailure };
    // the operator's own declarations (an MCP server's config) are not held to the ceiling set for the repository's
    const ceiling = request.operator ? undefined : this.options.ceiling;
    // each declared path is resolved once for this launch, and the ceiling, the conflicts and the binds all judge that
    // one real path: a symlink in the workspace that a tool flips between two folders passed the ceiling on one
    // resolution and was bound at the other (review M, M3)
    const workspace = this.realWorkspace(request.workspace);
    let guarded = this.guardedNow();
    // judged before anything of the host is changed (the workspace's owner), whatever the sandbox's mode (review O, O4)
    const refusal = workspaceRefusal(workspace, guarded);
    const resolved = new Map<string, string>();
    const real = (path: string): string => {
      let found = resolved.get(path);
      if (found === undefined) resolved.set(path, (found = realDeclaredPath(path, workspace)));
      return found;
    };
    if (ceiling !== undefined) {
      const beyond = ceilingProblems(request.declared, ceiling, workspace, real);
      if (beyond.length > 0) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `this tool asks more of the sandbox than this gateway allows, so it does not run: ${beyond.map((problem) => problem.message).join('; ')}` };
    }
    const declaredPolicy = resolveToolSandbox(request.declared, ceiling === undefined ? undefined : ceilingDefaults(ceiling));
    const policy: ToolSandbox = { ...declaredPolicy, filesystem: { read: declaredPolicy.filesystem.read.map(real), write: declaredPolicy.filesystem.write.map(real) } };
    if (this.status.sandbox === 'on') {
      // fail closed: a declared path into the gateway's own files (directly or by a symlink) is never bound
      const bubblewrap = this.probed.bubblewrap as Extract<Bubblewrap, { ok: true }>;
      if (refusal !== undefined) {
        this.giveWorkspace(workspace, refusal);
        return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `no local tool runs in this workspace: ${refusal}` };
      }
      const conflict = guardedConflict(policy, workspace, guarded) ?? hostConflict(policy, workspace, bubblewrap.system, [bubblewrap.path, process.execPath], { ...(request.operator ? { operator: true } : {}), ...(this.options.ceiling?.readableRoots ? { readableRoots: this.options.ceiling.readableRoots.map(real) } : {}) });
      if (conflict !== undefined) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `this tool cannot run in the sandbox: ${conflict}` };
      // every repository in the workspace as it is now: past the bound, none is left writable unnoticed (review N, N23)
      const repositories = writableRootsGuards([workspace]);
      if (!repositories.ok) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `no local tool runs in this workspace: ${repositories.reason}; set workspace_root (or HLDP_WORKSPACE) to a project's folder` };
      // and in each path the tool declares writable: the same repositories of the user's, outside the workspace (review P, P7)
      const declared = policy.filesystem.write.length > 0 ? writableRootsGuards(policy.filesystem.write) : undefined;
      if (declared !== undefined && !declared.ok) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `this tool cannot run in the sandbox: a path it declares writable cannot be protected: ${declared.reason}` };
      guarded = { ...guarded, repositories: declared === undefined ? repositories : mergeGuards([repositories, declared], [workspace, ...policy.filesystem.write]) };
    }
    this.giveWorkspace(workspace, refusal);
    const unstartable = environmentProblem(request.file);
    if (unstartable !== undefined) return { ok: false, code: 'SPAWN_FAILED', message: unstartable };
    if (request.warm && exportable(request.env)) {
      const warm = this.warm(request, policy, guarded);
      if (warm) return warm;
    }
    const limits = this.limitsFor(policy.limits);
    if (!limits.ok) return limits.refusal;
    const { cgroup } = limits;
    const command = this.status.sandbox === 'on' ? this.sandboxed(request, policy, guarded, limits) : this.contained(request, limits);
    if (!command.ok) {
      void cgroup?.release();
      return command.refusal;
    }
    const [file, ...args] = command.argv;
    const { read } = command;
    const finish = this.finisher(read, policy, cgroup);
    return { ok: true, plan: { file: file!, args, cwd: request.cwd, env: command.env, ...(read === bubblewrapOutcome ? { statusFd: STATUS_FD } : {}), finish } };
  }

  private finisher(read: (ending: LaunchEnding) => Promise<LaunchOutcome>, policy: ToolSandbox, cgroup: RunCgroup | undefined): (ending: LaunchEnding) => Promise<LaunchOutcome> {
    return async (ending) => {
      const outcome = await read(ending);
      const refusedForks = cgroup?.refusals();
      // its processes are gone (the namespace died with the run): removing it need not hold up the receipt
      void cgroup?.release();
      if (!this.status.limits.rlimits || outcome.failure) return outcome;
      const hit = limitHit({ exitCode: outcome.exitCode, signal: outcome.signal, stderr: ending.stderr, stopped: ending.stopped, refusedForks }, policy.limits);
      return hit ? { ...outcome, resourceLimit: hit } : outcome;
    };
  }

  private readonly pool: LauncherPool;

  /** the helpers that open files as `run_as` for the gatekeeper's file methods, by workspace */
  private readonly files = new Map<string, RunAsFiles>();

  filesOf(workspace: string): FileAccess {
    const { runAs } = this.probed;
    if (runAs === undefined || this.drop === undefined) return { ok: true };
    // fail closed, as a run does: a root gateway that cannot become run_as reads no file as root instead
    if (this.probed.runAsFailure !== undefined) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: this.probed.runAsFailure };
    const real = this.realWorkspace(workspace);
    // the file methods refuse a root no tool may run in by themselves; a fit one is the user's to write, as for a run
    this.giveWorkspace(real, workspaceRefusal(real, this.guardedNow()));
    let opener = this.files.get(real);
    if (opener === undefined) this.files.set(real, (opener = new RunAsFiles(real, this.drop, describeRunAs(runAs))));
    return { ok: true, opener };
  }

  close(): Promise<void> {
    for (const opener of this.files.values()) opener.close();
    this.files.clear();
    return this.pool.close();
  }

  /**
   * A run started by a launcher that set its sandbox (or namespace) and cgroup up ahead of time, when this host has
   * one of those; undefined where it has neither (the cold path runs the program directly).
   */
  private warm(request: LaunchRequest, policy: ToolSandbox, guarded: GuardedPaths): Launch | undefined {
    const limited = this.status.limits.rlimits;
    const cgroups = limited && this.probed.cgroups?.ok ? this.probed.cgroups.cgroups : undefined;
    // the run's secret, only in its script: its shell's line that the program never started holds it (review K, K9)
    const nonce = randomBytes(16).toString('hex');
    const run = { cwd: request.cwd, env: this.environment(request.env), nonce, ...(limited ? { limits: policy.limits, processes: this.status.limits.processes === 'rlimit' } : {}) };
    let command: WarmCommand;
    if (this.status.sandbox === 'on') {
      const bubblewrap = this.probed.bubblewrap as Extract<Bubblewrap, { ok: true }>;
      const workspace = this.realWorkspace(request.workspace);
      const args = bubblewrapArguments({ system: bubblewrap.system, workspace, policy, guarded, tmpfsSize: bubblewrap.tmpfsSize, dropping: this.drop !== undefined, ...(this.resolver ? { resolver: this.resolver } : {}) });
      // the drop comes first, before the launcher's shell: the shell, which reads the run's script and exports its
      // environment, is then no more than the tool (review O, O1: setpriv loaded the tool's LD_PRELOAD as root)
      // the host's TMPDIR is out of sight; the sandbox's own /tmp is private and writable
      const { runAs } = this.probed;
      command = { launcher: [bubblewrap.path, ...args, ...(this.drop ?? [])], workspace, statusFd: STATUS_FD, ...(this.drop && runAs ? { reader: { uid: runAs.uid, gid: runAs.gid } } : {}), run: { ...run, env: { ...run.env, TMPDIR: '/tmp' }, argv: [request.file, ...request.args] } };
    } else if (this.probed.namespace.ok) {
      // a wrapper would report a missing program as its own failure: find it first, as spawn would
      const program = findProgram(request.file, request.env.PATH, request.cwd);
      if (program === undefined) return { ok: false, code: 'SPAWN_FAILED', message: `spawn ${request.file} ENOENT: no such program on PATH (${request.env.PATH ?? ''})` };
      // the namespace's init joins the run's cgroup, which only root may: it drops in the script, for the program alone
      command = { launcher: this.probed.namespace.launcher, workspace: request.workspace, run: { ...run, ...(this.drop ? { drop: this.drop } : {}), argv: [program, ...request.args], init: true } };
    } else return undefined;
    const started = startWarm(this.pool, command, cgroups, policy.limits.processes);
    if (!started.ok) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the processes limit cannot be set for this run: ${started.message}` };
    const { launcher, argv } = started;
    const read = (ending: LaunchEnding): Promise<LaunchOutcome> => (command.statusFd === undefined ? initOutcome(ending, nonce) : bubblewrapOutcome(ending, nonce));
    const finished = this.finisher(read, policy, launcher.cgroup);
    const finish = async (ending: LaunchEnding): Promise<LaunchOutcome> => {
      closeScript(launcher);
      const outcome = await finished(ending);
      started.replenish();
      return outcome;
    };
    return { ok: true, plan: { file: argv[0]!, args: argv.slice(1), cwd: command.workspace, env: {}, ...(command.statusFd === undefined ? {} : { statusFd: command.statusFd }), finish, started: launcher.child } };
  }

  /**
   * How this run's limits are set: with a pids cgroup, by shell statements in a shell the run starts anyway (they
   * join the cgroup and call ulimit); without one, by prlimit, which then runs the tool (and sets RLIMIT_NPROC).
   */
  private limitsFor(limits: ResourceLimits): { ok: true; cgroup?: RunCgroup; prelude?: string; prlimit: string[] } | { ok: false; refusal: Launch } {
    if (!this.status.limits.rlimits) return { ok: true, prlimit: [] };
    const { cgroups } = this.probed;
    if (!cgroups?.ok) return { ok: true, prlimit: prlimitArguments(limits, this.status.limits.processes === 'rlimit') };
    try {
      const cgroup = cgroups.cgroups.create(limits.processes);
      return { ok: true, cgroup, prelude: limitsPrelude(cgroup.procs, limits), prlimit: [] };
    } catch (error) {
      // fail closed: the limit the probe promised cannot be set for this run
      return { ok: false, refusal: { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the processes limit cannot be set for this run: ${(error as Error).message}` } };
    }
  }

  /** bubblewrap, behind the limits' shell when there is one. */
  private sandboxed(request: LaunchRequest, policy: ToolSandbox, guarded: GuardedPaths, limits: { prelude?: string; prlimit: string[] }): Command {
    const bubblewrap = this.probed.bubblewrap as Extract<Bubblewrap, { ok: true }>;
    const workspace = this.realWorkspace(request.workspace);
    // a run that drops enters its working directory after the drop (`env -C`): bubblewrap, as root without
    // CAP_DAC_READ_SEARCH, could not enter one its user keeps to itself (0700)
    const dropping = this.drop !== undefined;
    const args = bubblewrapArguments({ system: bubblewrap.system, workspace, ...(dropping ? {} : { cwd: request.cwd }), policy, guarded, tmpfsSize: bubblewrap.tmpfsSize, dropping, ...(this.resolver ? { resolver: this.resolver } : {}) });
    // the host's TMPDIR is out of sight; the sandbox's own /tmp is private and writable
    const tool = withEnvironment({ ...this.environment(request.env), TMPDIR: '/tmp' }, [request.file, ...request.args], dropping ? request.cwd : undefined);
    // both by absolute path: the gateway's PATH may hold a folder tools can write (review K, K1)
    const inside = [bubblewrap.path, ...args, ...(this.drop ?? []), ...limits.prlimit, ...tool];
    const argv = limits.prelude ? [hostProgram('sh'), '-c', `${limits.prelude}\nexec "$@"`, 'hldp-limits', ...inside] : inside;
    // the host's sh and bubblewrap, and setpriv, get none of the run's environment: only the tool does (review O, O2)
    return { ok: true, argv, env: {}, read: bubblewrapOutcome };
  }

  /** No sandbox: the PID namespace (unshare) where there is one, the limits, the program itself. */
  private contained(request: LaunchRequest, limits: { prelude?: string; prlimit: string[] }): Command {
    // a wrapper would report a missing program as its own failure: find it first, as spawn would
    const program = findProgram(request.file, request.env.PATH, request.cwd);
    if (program === undefined) return { ok: false, refusal: { ok: false, code: 'SPAWN_FAILED', message: `spawn ${request.file} ENOENT: no such program on PATH (${request.env.PATH ?? ''})` } };
    const { namespace } = this.probed;
    const env = this.environment(request.env);
    // nothing to set up: the program itself, as spawn would start it
    if (!namespace.ok && !limits.prelude && limits.prlimit.length === 0 && this.drop === undefined) return { ok: true, argv: [program, ...request.args], env, read: directOutcome };
    // the host's setpriv, unshare, sh and prlimit get none of the run's environment: only the tool does (review O, O2)
    const tool = [...(this.drop ?? []), ...limits.prlimit, ...withEnvironment(env, [program, ...request.args])];
    if (namespace.ok) return { ok: true, argv: inNamespace(namespace.launcher, tool, limits.prelude), env: {}, read: initOutcome };
    const argv = limits.prelude ? [hostProgram('sh'), '-c', `${limits.prelude}\nexec "$@"`, 'hldp-limits', ...tool] : tool;
    return { ok: true, argv, env: {}, read: directOutcome };
  }
}

/**
 * Why no tool may run in this workspace, or undefined: `/`, one holding a system or home folder, or the tools
 * repository itself (with the fix). The sandbox refuses the run; in every mode the workspace is not given to run_as.
 */
function workspaceRefusal(workspace: string, guarded: GuardedPaths): string | undefined {
  const unsafe = workspaceConflict(workspace);
  if (unsafe !== undefined) return `${unsafe}, which every tool could write; set workspace_root (or HLDP_WORKSPACE) to a project's folder`;
  if (guarded.protect.includes(workspace)) {
    return `it is ${workspace}, which no tool may change (the tools repository: a tool could commit a tool or drop a policy, and the next scan would serve it); set workspace_root (or HLDP_WORKSPACE) to another folder`;
  }
  return undefined;
}

/** A command line to spawn and how to read its end, or why there is none. */
type Command = { ok: true; argv: string[]; env: Record<string, string>; read: (ending: LaunchEnding) => Promise<LaunchOutcome> } | { ok: false; refusal: Launch };

async function realPaths(paths: readonly string[] | undefined): Promise<string[]> {
  const found = new Set<string>();
  for (const path of paths ?? []) {
    found.add(path);
    const real = await realpath(path).catch(() => undefined);
    if (real) found.add(real);
  }
  return [...found];
}

/** Probes this host once and returns the sandbox every local process of this gateway or gatekeeper starts in. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const limits = options.limits !== false;
  const root = process.getuid?.() === 0;
  // a root gateway runs no tool as root unless the operator says so: each becomes `run_as` (nobody) first
  const runAs = root ? resolveRunAs(options.runAs) : undefined;
  const drop = runAs ? dropArguments(runAs) : undefined;
  const [probedBubblewrap, { namespace, prlimit }, cgroups, resolver, secrets] = await Promise.all([
    options.mode === 'off' ? undefined : settledProbe(() => probeBubblewrap(undefined, drop)),
    probeContainment(limits),
    limits ? probePidsCgroups() : undefined,
    resolverFolder(),
    // a root gateway's tools run as root, whom no file mode stops: what the host keeps from everyone else is hidden
    root && options.mode !== 'off' ? hostSecrets() : [],
  ]);
  const { bubblewrap, runAsFailure } = runAs ? await dropProbed(probedBubblewrap, runAs) : { bubblewrap: probedBubblewrap };
  const probed: Probed = { mode: options.mode, bubblewrap, namespace, prlimit, cgroups, root, ...(runAs ? { runAs } : {}), ...(runAsFailure ? { runAsFailure } : {}) };
  // the run scripts' folder too: where the temporary folder is inside a workspace, tools would read other runs' scripts
  const hide = await realPaths([...(options.hide ?? []), scriptFolder(), ...secrets]);
  const hidePatterns = [...(options.hidePatterns ?? []), ...(root && options.mode !== 'off' ? secretPatterns() : [])];
  return new HostSandbox(probed, { ...options, hide, hidePatterns, protect: await realPaths(options.protect) }, resolver);
}

/**
 * Whether a root gateway's runs can become `run_as`: the bubblewrap probe tried a run that does (a success says so);
 * where it failed, or there is no bubblewrap, setpriv is tried alone. Where bubblewrap runs but the drop fails inside
 * it, the sandbox stays on and every call is refused with the reason, never run as root.
 */
async function dropProbed(bubblewrap: Bubblewrap | undefined, runAs: RunAs): Promise<{ bubblewrap: Bubblewrap | undefined; runAsFailure?: string }> {
  if (bubblewrap?.ok) return { bubblewrap };
  const drop = dropArguments(runAs);
  const alone = await runProbe(drop[0]!, [...drop.slice(1), 'true']);
  const fix = 'install util-linux (setpriv), or set sandbox.run_as to a user of this host ({uid, gid}, or root to run tools as root)';
  if (!alone.ok) return { bubblewrap, runAsFailure: `this gateway runs as root and runs no tool as root, but it cannot make a tool ${describeRunAs(runAs)} here: ${probeFailure(alone)}; ${fix}` };
  if (bubblewrap === undefined) return { bubblewrap };
  // bubblewrap failed with the drop: is it the drop, or bubblewrap itself?
  const plain = await probeBubblewrap();
  if (!plain.ok) return { bubblewrap };
  return { bubblewrap: plain, runAsFailure: `this gateway runs as root and runs no tool as root, but a run in bubblewrap cannot become ${describeRunAs(runAs)}: ${bubblewrap.reason.replace(/; [^;]*$/, '')}; ${fix}` };
}

let containment: Promise<Sandbox> | undefined;

/** The sandbox of a run that was given none: no isolation or limits, but a PID namespace that ends with the run. */
export function processContainment(): Promise<Sandbox> {
  // a library caller's run without a sandbox: run as this process's user, as before run_as (a gateway always gives one)
  containment ??= createSandbox({ mode: 'off', limits: false, runAs: 'root' });
  return containment;
}
