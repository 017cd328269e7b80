/** A resource limit a sandboxed process can hit; the name a `RESOURCE_LIMIT` receipt gives. */
export type ResourceLimitName = 'memory' | 'cpu_seconds' | 'processes' | 'file_size';

/** The limits of one run: bytes for `memory` and `file_size`. */
export interface ResourceLimits {
  /** private writable memory of each process (RLIMIT_DATA), bytes */
  memory: number;
  /** CPU time of each process (RLIMIT_CPU), seconds */
  cpu_seconds: number;
  /** processes and threads at once (a pids cgroup, or RLIMIT_NPROC) */
  processes: number;
  /** largest file a process may write (RLIMIT_FSIZE), bytes */
  file_size: number;
}

/** The limits of a tool that declares none: room for compilers and runtimes, none for a runaway. */
export const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = {
  memory: 1024 * 1024 * 1024,
  cpu_seconds: 60,
  processes: 256,
  file_size: 1024 * 1024 * 1024,
};

/** A tool's `sandbox:` block as declared (sizes already in bytes); what it leaves out takes the default. */
export interface DeclaredSandbox {
  /** true: the host's network; default false (loopback of its own only) */
  network?: boolean;
  /** true: the tool may make unix sockets (a docker CLI's); default false: the sandbox refuses socket(AF_UNIX) */
  unix_sockets?: boolean;
  filesystem?: {
    /** more paths to see read-only (absolute, `~/…`, or relative to the workspace) */
    read?: string[];
    /** more paths to write (same forms) */
    write?: string[];
  };
  limits?: Partial<ResourceLimits>;
}

/** A tool's sandbox with every default filled in. */
export interface ToolSandbox {
  network: boolean;
  unix_sockets: boolean;
  filesystem: { read: string[]; write: string[] };
  limits: ResourceLimits;
}

/** The sandbox a declaration stands for: what it leaves out is the safe default (no network, no unix sockets, no extra paths, default limits). */
export function resolveToolSandbox(declared: DeclaredSandbox | undefined, defaults: Readonly<ResourceLimits> = DEFAULT_RESOURCE_LIMITS): ToolSandbox {
  return {
    network: declared?.network ?? false,
    unix_sockets: declared?.unix_sockets ?? false,
    filesystem: { read: declared?.filesystem?.read ?? [], write: declared?.filesystem?.write ?? [] },
    limits: { ...defaults, ...declared?.limits },
  };
}

const BYTE_SIZE = /^(\d+)\s*(?:([KMGT])(?:i?B)?|B)?$/i;
const UNIT: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/**
 * Bytes from a size as written in `TOOL.hdlp`: an integer, or a string such as `512MiB`, `512M`, `1GiB`, `64K`.
 * Units are binary (K = 1024), as `ulimit` and `prlimit` read them; undefined when the text is not a size.
 */
export function parseByteSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = BYTE_SIZE.exec(value.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * (match[2] ? UNIT[match[2].toUpperCase()]! : 1);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A size for people: `1 GiB`, `512 MiB`, `3000 bytes`. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
