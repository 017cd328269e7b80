import type { ChildProcess } from 'node:child_process';
import type { DeclaredSandbox, ErrorCode, ResourceLimitName } from '../core/index.js';
import type { RunAsFiles } from './run-as-files.js';

/** The gateway's (and a gatekeeper's) setting: `auto` sandboxes when bubblewrap runs here, `required` refuses to run without it. */
export type SandboxMode = 'auto' | 'required' | 'off';

/** The sandbox modes, for config validation and messages. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

/** What the start-up probe found: what holds for every local process this host runs. */
export interface SandboxStatus {
  mode: SandboxMode;
  /** `on`: every local tool runs inside bubblewrap; `off`: it runs as the host's own user, unisolated */
  sandbox: 'on' | 'off';
  /** why the sandbox is off, and what to change */
  reason?: string;
  /** how a run's whole process tree ends with it: a PID namespace (bubblewrap or unshare), or only its process group */
  containment: 'pid-namespace' | 'process-group';
  /** why only the process group, and what to change */
  containmentReason?: string;
  /** how the declared resource limits are enforced (or why they are not) */
  limits: LimitsStatus;
  /** the user a root gateway's tools run as (`sandbox.run_as`); absent: they run as this process's user */
  runAs?: { uid: number; gid: number; name?: string };
  /** a root gateway whose tools run as root (the operator said so), or cannot run as another user (every call refused) */
  runAsReason?: string;
  /** why no sandboxed run can get the system-call filter here (an architecture or a kernel without it): every one is refused */
  seccompReason?: string;
  /** why bubblewrap's setup is not kept from making folders and files on the host here (host-read-only.ts): runs go on, as before */
  setupReason?: string;
}

/** How resource limits hold on this host. */
export interface LimitsStatus {
  /** memory, CPU seconds and file size: setrlimit through util-linux's prlimit */
  rlimits: boolean;
  /** the number of processes: a pids cgroup, RLIMIT_NPROC, or not at all (root without a pids cgroup) */
  processes: 'cgroup' | 'rlimit' | 'unenforced';
  /** what is not enforced, why, and what to change */
  reason?: string;
}

/** One process to start under the sandbox. */
export interface LaunchRequest {
  file: string;
  args: readonly string[];
  /** absolute working directory, already confined to the workspace by the caller */
  cwd: string;
  env: Record<string, string>;
  /** the folder the tool may write: the shell root, or the gatekeeper's root */
  workspace: string;
  /** the tool's declared `sandbox:` block; defaults fill what it leaves out */
  declared?: DeclaredSandbox;
  /** `declared` comes from the operator's config (an MCP server), not from the repository: the ceiling does not hold it */
  operator?: boolean;
  /**
   * `cwd` is a folder of the gateway's own (an MCP server's working folder, under its data folder): shown read-only
   * inside the sandbox, even where a hidden path holds it
   */
  ownCwd?: boolean;
  /**
   * start it now, from a launcher that set its sandbox up ahead of time where one waits (`LaunchPlan.started`);
   * the caller then owns a child whose stdin is a pipe
   */
  warm?: boolean;
}

/** What to spawn instead of the request, and how to read its end. */
export interface LaunchPlan {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** the launcher writes its status (bubblewrap's JSON) to this extra descriptor, when set */
  statusFd?: number;
  /**
   * the gateway's descriptors the launcher gets, each at its number (beyond the status one; holes ignored): the
   * seccomp program's at `SECCOMP_FD`, the sources bubblewrap binds by descriptor from `BIND_FD_BASE` on. The runner
   * passes them in its spawn's `stdio` (`planStdio`) and closes its copies once spawned (`closePassed`, safe to call
   * twice; `finish` calls it too)
   */
  passed?: { fds: Array<{ at: number; fd: number }> };
  /** reads how the launched process ended, and frees what the launch held */
  finish(ending: LaunchEnding): Promise<LaunchOutcome>;
  /** the process, already started (a `warm` request): `file` and `args` are what it runs, not to be spawned again */
  started?: ChildProcess;
}

/** How the spawned process ended, as the runner saw it. */
export interface LaunchEnding {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** what the launcher wrote to `statusFd` */
  status: string;
  /** the raw stderr (the launcher's own errors arrive there) */
  stderr: string;
  /** whether the runner stopped it (deadline or cancel) */
  stopped: boolean;
}

/** The tool's own end, with the launcher taken out of it. */
export interface LaunchOutcome {
  exitCode: number | null;
  signal: string | null;
  /** the tool never ran: the sandbox could not be set up, or its program could not be started */
  failure?: { code: Extract<ErrorCode, 'SANDBOX_FAILED' | 'SPAWN_FAILED'>; message: string };
  /** the limit the run hit, and a line saying so */
  resourceLimit?: { name: ResourceLimitName; message: string };
  /** the launcher's own line (with the run's secret) that said the tool never started: not the tool's stderr, so not kept nor counted */
  launcherLine?: string;
  /** one line the gateway adds to the run's error, after its own words (a program the sandbox does not show: hidden-program.ts) */
  note?: string;
}

/** A launch, or why this request may not run. */
export type Launch = { ok: true; plan: LaunchPlan } | { ok: false; code: Extract<ErrorCode, 'SANDBOX_UNAVAILABLE' | 'SPAWN_FAILED' | 'EXECUTOR_MISCONFIGURED'>; message: string };

/** How the gatekeeper's file methods open files: see `Sandbox.filesOf`. */
export type FileAccess = { ok: true; opener?: RunAsFiles } | { ok: false; code: Extract<ErrorCode, 'SANDBOX_UNAVAILABLE'>; message: string };

/** Starts local processes isolated and limited as the probe found possible. */
export interface Sandbox {
  /** what holds now: a `required` sandbox that could not run at start is probed again by the calls it refuses */
  readonly status: SandboxStatus;
  /** the paths no tool may see (the gateway's data, cache, receipts database, config; the run scripts' folder), as given and as their symlinks resolve */
  readonly hidden: readonly string[];
  /** the paths tools may read but never change (the tools repository, the gateway's own files), as given and real; PATH folders are read-only too */
  readonly readOnly: readonly string[];
  launch(request: LaunchRequest): Promise<Launch>;
  /**
   * Whom the gatekeeper's file methods act as in `workspace` (review O, O5): with `opener`, a root gateway's
   * `run_as` user, through a helper process of that user (the workspace given to the user as a run's launch gives
   * it); without, this process's user, as tools are; a refusal where tools cannot become `run_as` (no run either).
   */
  filesOf(workspace: string): FileAccess;
  /** stops the launchers waiting for runs, and resolves once those still starting are stopped too; runs under way go on */
  close(): Promise<void>;
}
