import { realpathSync } from 'node:fs';
import type { ToolSandbox } from '../core/index.js';
import { probeBubblewrap, STATUS_FD, type Bubblewrap } from './bubblewrap.js';
import type { GuardedPaths, HomeReads } from './bubblewrap-arguments.js';
import type { Probed, SandboxOptions } from './create-sandbox.js';
import { expandPatterns } from './host-secrets.js';
import { closeInheritedDescriptors } from './inherited-descriptors.js';
import { containedCommand, finisher, runLimits, sandboxedCommand, type LaunchHost } from './launch-command.js';
import { launchPolicy, sandboxGuards, workspaceRefusal } from './launch-guards.js';
import { LauncherPool } from './launcher-pool.js';
import { describeRunAs, dropArguments, giveWorkspace } from './run-as.js';
import { RunAsFiles } from './run-as-files.js';
import { passedBinds } from './bind-descriptors.js';
import { closePassed } from './passed-descriptors.js';
import type { FileAccess, Launch, LaunchEnding, LaunchOutcome, LaunchPlan, LaunchRequest, Sandbox, SandboxStatus } from './sandbox.js';
import { describeStatus } from './sandbox-status.js';
import { noteHiddenPrograms, runView } from './hidden-program.js';
import { environmentProblem } from './tool-environment.js';
import { warmLaunch } from './warm-plan.js';
import { exportable } from './warm-script.js';

/** How long a `required` sandbox that cannot run waits between two probes made for the calls it refuses. */
const REPROBE_INTERVAL_MS = 1000;

/** The sandbox of this host, as its probes found it: every launch is judged, set up and started through it. */
export class HostSandbox implements Sandbox, LaunchHost {
  private current: SandboxStatus;
  private readonly guarded: GuardedPaths;
  private probedAt = Date.now();
  private probing: Promise<void> | undefined;

  constructor(
    public probed: Probed,
    private readonly options: SandboxOptions,
    readonly resolver: string | undefined,
  ) {
    this.current = describeStatus(probed, options.limits !== false);
    this.guarded = { hide: options.hide ?? [], protect: options.protect ?? [] };
    this.pool = new LauncherPool(options.waitingLaunchers);
    this.drop = probed.runAs ? dropArguments(probed.runAs) : undefined;
  }

  /** setpriv's command that becomes `run_as` before the tool, for a root gateway's runs */
  readonly drop: string[] | undefined;

  /**
   * The run's environment; a run that becomes `run_as` also trusts every repository to git (`safe.directory=*`, as
   * command-line configuration, which git honours for it): git refuses one another user owns ("dubious ownership"),
   * so the git tools of a root gateway failed in a workspace root made. Its config and hooks are read-only in the
   * sandbox, and what they would run, runs as the same unprivileged user as the tool.
   */
  environment(env: Record<string, string>): Record<string, string> {
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

  realWorkspace(path: string): string {
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
    const workspace = this.realWorkspace(request.workspace);
    let guarded = this.guardedNow();
    // judged before anything of the host is changed (the workspace's owner), whatever the sandbox's mode (review O, O4)
    const runAsHome = this.probed.runAs?.home;
    const refusal = workspaceRefusal(workspace, guarded, runAsHome);
    const resolved = launchPolicy(request.declared, ceiling, workspace);
    if (!resolved.ok) return resolved.refusal;
    const { policy, real } = resolved;
    if (this.status.sandbox === 'on') {
      if (refusal !== undefined) {
        this.giveWorkspace(workspace, refusal);
        return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `no local tool runs in this workspace: ${refusal}` };
      }
      // the probe found no system-call filter this host's kernel takes (or this architecture has none): fail closed
      if (this.status.seccompReason !== undefined) return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: this.status.seccompReason };
      const bubblewrap = this.probed.bubblewrap as Extract<Bubblewrap, { ok: true }>;
      const reads = (): HomeReads => ({ ...(request.operator ? { operator: true } : {}), ...(runAsHome ? { runAsHome } : {}), ...(this.options.ceiling?.readableRoots ? { readableRoots: this.options.ceiling.readableRoots.map(real) } : {}), ...(this.options.ceiling?.writableRoots ? { writableRoots: this.options.ceiling.writableRoots.map(real) } : {}) });
      const sandboxed = sandboxGuards(policy, workspace, guarded, bubblewrap, reads);
      if (!sandboxed.ok) return sandboxed.refusal;
      guarded = sandboxed.guarded;
      this.giveWorkspace(workspace, refusal);
      const started = this.start(request, policy, guarded);
      // a program it cannot find in a folder it does not see (a shim's home, review userZ10, U10-5): said in its error
      if (started.ok) noteHiddenPrograms(started.plan, () => runView(request, policy, workspace, guarded, bubblewrap.system, this.resolver, reads()));
      return started;
    }
    this.giveWorkspace(workspace, refusal);
    return this.start(request, policy, guarded);
  }

  /** Starts a judged launch: warm where a launcher waits for it, else cold, under its limits. */
  private start(request: LaunchRequest, policy: ToolSandbox, guarded: GuardedPaths): Launch {
    const unstartable = environmentProblem(request.file);
    if (unstartable !== undefined) return { ok: false, code: 'SPAWN_FAILED', message: unstartable };
    const leftovers = this.closeLeftovers();
    if (leftovers !== undefined) return leftovers;
    if (request.warm && exportable(request.env)) {
      const warm = warmLaunch(this, this.pool, request, policy, guarded);
      if (warm) return warm;
    }
    const limits = runLimits(this, policy.limits);
    if (!limits.ok) return limits.refusal;
    const { cgroup } = limits;
    const command = this.status.sandbox === 'on' ? sandboxedCommand(this, request, policy, guarded, limits) : containedCommand(this, request, limits);
    if (!command.ok) {
      void cgroup?.release();
      return command.refusal;
    }
    const [file, ...args] = command.argv;
    const { read, held } = command;
    const finished = finisher(this, read, policy, cgroup);
    // the seccomp program's descriptor and the binds' sources, one list the plan owns from here
    const fds = [...(command.passed ?? []), ...passedBinds(held?.fds ?? [])];
    // the caller closes the descriptors once it has spawned; here too, for a plan never spawned
    const finish = (ending: LaunchEnding): Promise<LaunchOutcome> => (closePassed(plan), finished(ending));
    const plan: LaunchPlan = { file: file!, args, cwd: request.cwd, env: command.env, ...(this.status.sandbox === 'on' ? { statusFd: STATUS_FD } : {}), ...(fds.length > 0 ? { passed: { fds } } : {}), finish };
    return { ok: true, plan };
  }

  /**
   * Closes what the gateway inherited open across exec before any tool can get it (review V, V3), at every launch:
   * a launcher started ahead of a later run is spawned by this process too. A sandboxed run fails closed when what
   * it would get cannot be known.
   */
  private closeLeftovers(): Launch | undefined {
    try {
      // said nowhere: under a parent that leaks one (this machine's job runner leaks a pipe into every process),
      // every `hldp call` would warn
      closeInheritedDescriptors();
    } catch (error) {
      if (this.status.sandbox !== 'on') return undefined;
      return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the descriptors a tool would inherit cannot be listed, so it did not run: ${(error as Error).message}` };
    }
    return undefined;
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

}
