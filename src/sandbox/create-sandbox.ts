import type { Launch, LaunchEnding, LaunchOutcome, LaunchPlan, LaunchRequest, Sandbox, SandboxMode, SandboxStatus } from './sandbox.js';
import { decodeStatus } from './exit-status.js';
import { findProgram } from './find-program.js';
import { probePidNamespace, type PidNamespace } from './pid-namespace.js';

/** How to build a sandbox. */
export interface SandboxOptions {
  mode: SandboxMode;
}

/** What the probes found, from which a sandbox is made. */
interface Probed {
  mode: SandboxMode;
  namespace: PidNamespace;
}

const bare = async (ending: LaunchEnding): Promise<LaunchOutcome> => ({ exitCode: ending.exitCode, signal: ending.signal });
const decoded = async (ending: LaunchEnding): Promise<LaunchOutcome> =>
  ending.signal !== null ? { exitCode: null, signal: ending.signal } : decodeStatus(ending.exitCode, null);

class HostSandbox implements Sandbox {
  readonly status: SandboxStatus;

  constructor(private readonly probed: Probed) {
    const { namespace } = probed;
    this.status = {
      mode: probed.mode,
      sandbox: 'off',
      reason: 'the bubblewrap sandbox is not built yet',
      containment: namespace.ok ? 'pid-namespace' : 'process-group',
      ...(namespace.ok ? {} : { containmentReason: containmentReason(namespace.reason) }),
      limits: { rlimits: false, processes: 'unenforced', reason: 'resource limits are not built yet' },
    };
  }

  async launch(request: LaunchRequest): Promise<Launch> {
    const { namespace } = this.probed;
    if (!namespace.ok) return { ok: true, plan: { file: request.file, args: [...request.args], cwd: request.cwd, env: request.env, finish: bare } };
    // the namespace's init would report a missing program as a shell's 127: find it first, as spawn would
    const program = await findProgram(request.file, request.env.PATH, request.cwd);
    if (program === undefined) return { ok: false, code: 'SPAWN_FAILED', message: `spawn ${request.file} ENOENT: no such program on PATH (${request.env.PATH ?? ''})` };
    const [file, ...prefix] = namespace.prefix;
    const plan: LaunchPlan = { file: file!, args: [...prefix, program, ...request.args], cwd: request.cwd, env: request.env, finish: decoded };
    return { ok: true, plan };
  }
}

function containmentReason(reason: string): string {
  return (
    `no PID namespace can be made here (${reason}), so a process that leaves its group (setsid, a double fork) can outlive its call; ` +
    'install bubblewrap, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or run as root'
  );
}

/** Probes this host once and returns the sandbox every local process of this gateway or gatekeeper starts in. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  return new HostSandbox({ mode: options.mode, namespace: await probePidNamespace() });
}

let containment: Promise<Sandbox> | undefined;

/** The sandbox of a run that was given none: no isolation or limits, but a PID namespace that ends with the run. */
export function processContainment(): Promise<Sandbox> {
  containment ??= createSandbox({ mode: 'off' });
  return containment;
}
