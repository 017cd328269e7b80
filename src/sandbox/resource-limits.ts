import { hostProgram } from './bubblewrap.js';
import { formatByteSize, shellWord, type ResourceLimitName, type ResourceLimits } from '../core/index.js';

/** `prlimit` arguments that set the limits for the tool it then runs (soft = hard, but CPU: SIGXCPU at the limit, SIGKILL a second later). */
export function prlimitArguments(limits: ResourceLimits, processes: boolean): string[] {
  return [
    hostProgram('prlimit'),
    `--data=${limits.memory}`,
    `--cpu=${limits.cpu_seconds}:${limits.cpu_seconds + 1}`,
    `--fsize=${limits.file_size}`,
    ...(processes ? [`--nproc=${limits.processes}`] : []),
    '--core=0',
    '--',
  ];
}

/** The status and the line a limits prelude fails with: the tool never ran. */
export const PRELUDE_FAILURE = { status: 125, line: 'hldp-sandbox: the limits of this run could not be set' };

export { shellWord };

/** Statements run as one: if any fails, the shell says so on stderr and the run stops with the prelude's status. */
function allOrStop(statements: string[]): string {
  return `{ ${statements.join(' && ')}; } || { echo '${PRELUDE_FAILURE.line}' >&2; exit ${PRELUDE_FAILURE.status}; }`;
}

/**
 * `ulimit` statements (POSIX units: KiB for data, 512-byte blocks for files; CPU soft before hard). Inside the
 * sandbox no capability is left: a limit can only be lowered, never raised again by the tool.
 */
function ulimitStatements(limits: ResourceLimits): string[] {
  return [
    `ulimit -d ${Math.max(1, Math.floor(limits.memory / 1024))}`,
    `ulimit -S -t ${limits.cpu_seconds}`,
    `ulimit -H -t ${limits.cpu_seconds + 1}`,
    `ulimit -f ${Math.max(1, Math.floor(limits.file_size / 512))}`,
    'ulimit -c 0',
  ];
}

/** The run's limits as `ulimit` statements; the run stops if one fails. */
export function ulimits(limits: ResourceLimits): string {
  return allOrStop(ulimitStatements(limits));
}

/**
 * Shell statements that put the shell in the run's pids cgroup (`0` is the writer itself, in any PID namespace)
 * and set the other limits with `ulimit`. One shell the run starts anyway (the namespace's init, or a launcher
 * before bubblewrap) does it, saving a process; if any of it fails, the run stops there.
 */
export function limitsPrelude(cgroupProcs: string, limits: ResourceLimits): string {
  return allOrStop([`echo 0 > ${shellWord(cgroupProcs)}`, ...ulimitStatements(limits)]);
}

/** The statement that puts the shell running it in a pids cgroup before it execs anything; the run stops if it fails. */
export function cgroupJoin(cgroupProcs: string): string {
  return allOrStop([`echo 0 > ${shellWord(cgroupProcs)}`]);
}

/** What the end of a run says about its limits. */
export interface LimitEvidence {
  exitCode: number | null;
  /** decoded: a shell's 128+N already read as signal N */
  signal: string | null;
  stderr: string;
  /** the run did not end on its own */
  stopped: boolean;
  /** forks a pids cgroup refused, when there was one */
  refusedForks: number | undefined;
}

// what a program prints when an allocation fails: strerror(ENOMEM), gnulib, perl, Python, C++, Go, Rust, V8, glibc's malloc
const ALLOCATION_FAILURE =
  /Cannot allocate memory|memory exhausted|Out of memory!|out of memory|MemoryError|std::bad_alloc|memory allocation of \d+ bytes failed|allocation failed|failed to allocate|ENOMEM|Failed to reserve virtual memory/i;
// what a shell or runtime prints when fork or a thread is refused (EAGAIN)
const FORK_FAILURE = /Cannot fork|can't fork|fork(?:: retry)?: Resource temporarily unavailable|fork failed|spawn EAGAIN|clone: Resource temporarily unavailable|pthread_create|Resource temporarily unavailable.*(?:fork|thread)/i;

/**
 * The limit a run hit, if any. Certain: SIGXCPU (CPU seconds), SIGXFSZ (file size), refusals counted by the pids
 * cgroup. Inferred from the program's own error: a refused fork where no cgroup counts them, and, on a run that
 * failed, an allocation failure (memory, whose limit makes allocations fail rather than killing) or EFBIG.
 */
export function limitHit(evidence: LimitEvidence, limits: ResourceLimits): { name: ResourceLimitName; message: string } | undefined {
  const cpu = { name: 'cpu_seconds' as const, message: `resource limit: the CPU-time limit of ${limits.cpu_seconds} s was reached (RLIMIT_CPU; the kernel sent SIGXCPU)` };
  const fileSize = { name: 'file_size' as const, message: `resource limit: a file reached the size limit of ${formatByteSize(limits.file_size)} (RLIMIT_FSIZE)` };
  const processes = (how: string) => ({ name: 'processes' as const, message: `resource limit: the limit of ${limits.processes} processes was reached (${how})` });
  if (evidence.signal === 'SIGXCPU') return cpu;
  if (evidence.signal === 'SIGXFSZ') return fileSize;
  if (evidence.refusedForks !== undefined && evidence.refusedForks > 0) return processes(`the pids cgroup refused ${evidence.refusedForks} forks`);
  // a refused fork is a hit even when the program carries on and exits 0, as the cgroup's count is
  if (evidence.refusedForks === undefined && FORK_FAILURE.test(evidence.stderr)) return processes('RLIMIT_NPROC; the program reports a refused fork');
  const failed = evidence.stopped || evidence.signal !== null || evidence.exitCode !== 0;
  if (!failed) return undefined;
  if (ALLOCATION_FAILURE.test(evidence.stderr)) {
    return { name: 'memory', message: `resource limit: the memory limit of ${formatByteSize(limits.memory)} of private writable memory per process was reached (RLIMIT_DATA); the program's own error follows` };
  }
  if (/File too large/.test(evidence.stderr)) return fileSize;
  return undefined;
}
