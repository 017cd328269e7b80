import { realpath } from 'node:fs/promises';
import { resolveToolSandbox } from '../core/index.js';
import { probeBubblewrap, resolverFolder, STATUS_FD, type Bubblewrap } from './bubblewrap.js';
import { bubblewrapArguments, type GuardedPaths } from './bubblewrap-arguments.js';
import { findProgram } from './find-program.js';
import { bubblewrapOutcome, directOutcome, initOutcome } from './launch-outcome.js';
import { probePidNamespace, type PidNamespace } from './pid-namespace.js';
import { probePidsCgroups, type PidsCgroupProbe, type RunCgroup } from './pids-cgroup.js';
import { runProbe } from './probe-command.js';
import { limitHit, prlimitArguments } from './resource-limits.js';
import type { Launch, LaunchEnding, LaunchOutcome, LaunchRequest, Sandbox, SandboxMode, SandboxStatus } from './sandbox.js';
import { describeStatus } from './sandbox-status.js';

/** How to build a sandbox. */
export interface SandboxOptions {
  mode: SandboxMode;
  /** paths no tool may see: the gateway's cache, data directory, receipts database and its journal files, config file */
  hide?: readonly string[];
  /** paths tools may read but never change: the tools repository */
  protect?: readonly string[];
  /** whether the declared resource limits apply; default true */
  limits?: boolean;
}

/** What the probes found, from which a sandbox is made. */
export interface Probed {
  mode: SandboxMode;
  bubblewrap: Bubblewrap | undefined;
  namespace: PidNamespace;
  prlimit: boolean;
  cgroups: PidsCgroupProbe | undefined;
  root: boolean;
}

// the cgroup is joined before anything runs, so the launcher's own forks count too
const joinCgroup = (cgroup: RunCgroup): string[] => ['sh', '-c', 'echo $$ > "$0" && exec "$@"', cgroup.procs];

class HostSandbox implements Sandbox {
  readonly status: SandboxStatus;
  private readonly guarded: GuardedPaths;

  constructor(
    private readonly probed: Probed,
    options: SandboxOptions,
    private readonly resolver: string | undefined,
  ) {
    this.status = describeStatus(probed, options.limits !== false);
    this.guarded = { hide: options.hide ?? [], protect: options.protect ?? [] };
  }

  async launch(request: LaunchRequest): Promise<Launch> {
    const { bubblewrap, namespace, cgroups } = this.probed;
    if (this.status.mode === 'required' && this.status.sandbox === 'off') {
      return { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `the gateway's sandbox is 'required', but it cannot run here, so no local tool runs: ${this.status.reason}` };
    }
    const policy = resolveToolSandbox(request.declared);
    const limited = this.status.limits.rlimits;
    const inner = limited ? prlimitArguments(policy.limits, this.status.limits.processes === 'rlimit') : [];
    let command: string[];
    let read: (ending: LaunchEnding) => Promise<LaunchOutcome>;
    const env = { ...request.env };
    if (bubblewrap?.ok && this.status.sandbox === 'on') {
      const workspace = await realpath(request.workspace).catch(() => request.workspace);
      const args = await bubblewrapArguments({ system: bubblewrap.system, workspace, cwd: request.cwd, policy, guarded: this.guarded, ...(this.resolver ? { resolver: this.resolver } : {}) });
      command = ['bwrap', ...args, ...inner, request.file, ...request.args];
      read = bubblewrapOutcome;
      // the host's TMPDIR is out of sight; the sandbox's own /tmp is private and writable
      env.TMPDIR = '/tmp';
    } else {
      // without bubblewrap a wrapper would report a missing program as its own failure: find it first, as spawn would
      const program = await findProgram(request.file, request.env.PATH, request.cwd);
      if (program === undefined) return { ok: false, code: 'SPAWN_FAILED', message: `spawn ${request.file} ENOENT: no such program on PATH (${request.env.PATH ?? ''})` };
      command = [...(namespace.ok ? namespace.prefix : []), ...inner, program, ...request.args];
      read = namespace.ok ? initOutcome : directOutcome;
    }
    const cgroup = limited && cgroups?.ok ? await cgroups.cgroups.create(policy.limits.processes).catch(() => undefined) : undefined;
    if (cgroup) command = [...joinCgroup(cgroup), ...command];
    const [file, ...args] = command;
    const finish = async (ending: LaunchEnding): Promise<LaunchOutcome> => {
      const outcome = await read(ending);
      const refusedForks = cgroup ? await cgroup.refusals() : undefined;
      await cgroup?.release();
      if (!limited || outcome.failure) return outcome;
      const hit = limitHit({ exitCode: outcome.exitCode, signal: outcome.signal, stderr: ending.stderr, stopped: ending.stopped, refusedForks }, policy.limits);
      return hit ? { ...outcome, resourceLimit: hit } : outcome;
    };
    return { ok: true, plan: { file: file!, args, cwd: request.cwd, env, ...(read === bubblewrapOutcome ? { statusFd: STATUS_FD } : {}), finish } };
  }
}

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
  const [bubblewrap, namespace, prlimit, cgroups, resolver] = await Promise.all([
    options.mode === 'off' ? undefined : probeBubblewrap(),
    probePidNamespace(),
    limits ? runProbe('prlimit', ['--nofile=64', '--', 'true']).then((result) => result.ok) : false,
    limits ? probePidsCgroups() : undefined,
    resolverFolder(),
  ]);
  const probed: Probed = { mode: options.mode, bubblewrap, namespace, prlimit, cgroups, root };
  return new HostSandbox(probed, { ...options, hide: await realPaths(options.hide), protect: await realPaths(options.protect) }, resolver);
}

let containment: Promise<Sandbox> | undefined;

/** The sandbox of a run that was given none: no isolation or limits, but a PID namespace that ends with the run. */
export function processContainment(): Promise<Sandbox> {
  containment ??= createSandbox({ mode: 'off', limits: false });
  return containment;
}
