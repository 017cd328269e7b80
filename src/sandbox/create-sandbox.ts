import { realpath } from 'node:fs/promises';
import type { SandboxCeiling } from '../core/index.js';
import { probeBubblewrap, resolverFolder, settledProbe, type Bubblewrap } from './bubblewrap.js';
import { hostSecrets, secretPatterns } from './host-secrets.js';
import { HostSandbox } from './host-sandbox.js';
import { probeFailure, runProbe } from './probe-command.js';
import { describeRunAs, dropArguments, resolveRunAs, type RunAs, type RunAsSetting } from './run-as.js';
import { probeContainment, type PidNamespace } from './pid-namespace.js';
import { probePidsCgroups, type PidsCgroupProbe } from './pids-cgroup.js';
import { scriptFolder } from './script-folder.js';
import type { Sandbox, SandboxMode, SandboxStatus } from './sandbox.js';

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
