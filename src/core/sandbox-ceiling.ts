import { DEFAULT_RESOURCE_LIMITS, formatByteSize, type DeclaredSandbox, type ResourceLimitName, type ResourceLimits } from './tool-sandbox.js';

/**
 * The most any tool definition may ask of the sandbox, set by the operator (`sandbox.ceiling` in the gateway's config):
 * definitions come from a repository anyone with push access writes (review K, S4). What it leaves out is not capped.
 */
export interface SandboxCeiling {
  /** false: no definition may ask for the host's network */
  network?: boolean;
  /** true: a definition may ask for unix sockets (`sandbox.unix_sockets: true`); anything else: none may */
  unixSockets?: boolean;
  /** the highest limits a definition may declare; a definition that declares none runs under the lower of the default and this */
  limits?: Partial<ResourceLimits>;
  /** absolute folders: a declared `filesystem.write` outside the workspace must lie inside one of them (none listed: no such write) */
  writableRoots?: readonly string[];
  /** absolute folders: a declared `filesystem.read` outside the workspace must lie inside one of them */
  readableRoots?: readonly string[];
}

/** One way a definition goes beyond the ceiling: the field as a path in the definition, and why. */
export interface CeilingProblem {
  path: Array<string | number>;
  message: string;
}

const LIMIT_NAMES: readonly ResourceLimitName[] = ['memory', 'cpu_seconds', 'processes', 'file_size'];

const isInside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);

function limitText(name: ResourceLimitName, value: number): string {
  return name === 'memory' || name === 'file_size' ? formatByteSize(value) : String(value);
}

/**
 * Where a declared sandbox asks for more than the ceiling allows, each with the field and a message naming the fix.
 * `resolve` turns a declared path into the absolute (real, at run time) path it names; `workspace` is writable and
 * readable whatever the ceiling says.
 */
export function ceilingProblems(declared: DeclaredSandbox | undefined, ceiling: SandboxCeiling, workspace: string, resolve: (path: string) => string): CeilingProblem[] {
  const problems: CeilingProblem[] = [];
  if (declared === undefined) return problems;
  if (declared.network === true && ceiling.network === false) {
    problems.push({ path: ['sandbox', 'network'], message: "'sandbox.network: true' is beyond the gateway's ceiling (sandbox.ceiling.network: false): this gateway gives no tool the host's network" });
  }
  // refused unless the operator allows it: a definition anyone with push access writes could otherwise declare its way
  // back to the host's daemons, which the seccomp filter keeps it from (review U, U1)
  if (declared.unix_sockets === true && ceiling.unixSockets !== true) {
    problems.push({ path: ['sandbox', 'unix_sockets'], message: "'sandbox.unix_sockets: true' is beyond the gateway's ceiling: a unix socket can be a host daemon's (docker, lxd, tmux, ssh-agent), which would run what the tool sends outside the sandbox; the operator allows it with sandbox.ceiling.unix_sockets: true" });
  }
  for (const name of LIMIT_NAMES) {
    const asked = declared.limits?.[name];
    const most = ceiling.limits?.[name];
    if (asked !== undefined && most !== undefined && asked > most) {
      problems.push({ path: ['sandbox', 'limits', name], message: `'sandbox.limits.${name}' ${limitText(name, asked)} is beyond the gateway's ceiling of ${limitText(name, most)} (sandbox.ceiling.${name}): declare at most that` });
    }
  }
  for (const [kind, roots, key] of [['write', ceiling.writableRoots, 'writable_roots'], ['read', ceiling.readableRoots, 'readable_roots']] as const) {
    if (roots === undefined) continue;
    (declared.filesystem?.[kind] ?? []).forEach((path, index) => {
      const real = resolve(path);
      if (isInside(real, workspace) || roots.some((root) => isInside(real, root))) return;
      const where = roots.length === 0 ? 'it lists none' : `it lists ${roots.join(', ')}`;
      problems.push({ path: ['sandbox', 'filesystem', kind, index], message: `'sandbox.filesystem.${kind}' '${path}'${real === path ? '' : ` (${real})`} is outside the workspace and every folder sandbox.ceiling.${key} allows (${where})` });
    });
  }
  return problems;
}

/** The limits a definition that leaves one out runs under: the default, or the ceiling where that is lower. */
export function ceilingDefaults(ceiling: SandboxCeiling | undefined): ResourceLimits {
  const limits = { ...DEFAULT_RESOURCE_LIMITS };
  for (const name of LIMIT_NAMES) {
    const most = ceiling?.limits?.[name];
    if (most !== undefined && most < limits[name]) limits[name] = most;
  }
  return limits;
}
