import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ceilingProblems, formatByteSize, parseByteSize, type DeclaredSandbox, type SandboxCeiling } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

/** Below this, not even a shell starts: a smaller memory limit is a mistake, not a policy. */
export const MINIMUM_MEMORY_BYTES = 16 * 1024 * 1024;

/** A `sandbox:` block as written (already shape-checked by the schema). */
interface WrittenSandbox {
  network?: boolean;
  unix_sockets?: boolean;
  filesystem?: { read?: string[]; write?: string[] };
  limits?: { memory?: number | string; cpu_seconds?: number; processes?: number; file_size?: number | string };
}

/** The declared sandbox with sizes in bytes, the problems that make it unusable, and a warning where it has no effect. */
export function checkSandbox(value: Record<string, unknown>): { sandbox?: DeclaredSandbox; errors: SchemaProblem[]; warnings: SchemaProblem[] } {
  const written = value.sandbox as WrittenSandbox | undefined;
  if (written === undefined) return { errors: [], warnings: [] };
  const errors: SchemaProblem[] = [];
  const warnings: SchemaProblem[] = [];
  const size = (key: 'memory' | 'file_size', minimum: number): number | undefined => {
    const text = written.limits?.[key];
    if (text === undefined) return undefined;
    const bytes = parseByteSize(text);
    if (bytes === undefined) errors.push({ path: ['sandbox', 'limits', key], atKey: false, message: `'sandbox.limits.${key}' is not a size in bytes: write an integer, or a string such as 512MiB or 1GiB` });
    else if (bytes < minimum) errors.push({ path: ['sandbox', 'limits', key], atKey: false, message: `'sandbox.limits.${key}' must be at least ${formatByteSize(minimum)}; ${formatByteSize(bytes)} cannot even start a shell` });
    return bytes;
  };
  const memory = size('memory', MINIMUM_MEMORY_BYTES);
  const fileSize = size('file_size', 1);
  if (!runsProcesses(value)) {
    warnings.push({ path: ['sandbox'], atKey: true, message: "'sandbox' has no effect here: only shell tools and the gatekeeper's exec start local processes" });
  }
  const limits = {
    ...(memory !== undefined ? { memory } : {}),
    ...(written.limits?.cpu_seconds !== undefined ? { cpu_seconds: written.limits.cpu_seconds } : {}),
    ...(written.limits?.processes !== undefined ? { processes: written.limits.processes } : {}),
    ...(fileSize !== undefined ? { file_size: fileSize } : {}),
  };
  const sandbox: DeclaredSandbox = {
    ...(written.network !== undefined ? { network: written.network } : {}),
    ...(written.unix_sockets !== undefined ? { unix_sockets: written.unix_sockets } : {}),
    ...(written.filesystem ? { filesystem: { ...written.filesystem } } : {}),
    ...(written.limits ? { limits } : {}),
  };
  return { sandbox, errors, warnings };
}

/** Whether the tool starts local processes, the only ones a `sandbox:` block applies to. */
export function runsProcesses(value: Record<string, unknown>): boolean {
  return value.executor === 'shell' || (value.executor === 'gatekeeper' && value.method === 'exec');
}

/** Each declared path the sandbox would refuse, at its list entry: every call of the tool would be refused before it ran. */
export function refusedSandboxPaths(filesystem: NonNullable<DeclaredSandbox['filesystem']>, refusal: (kind: 'read' | 'write', path: string) => string | undefined): SchemaProblem[] {
  return (['read', 'write'] as const).flatMap((kind) =>
    (filesystem[kind] ?? []).flatMap((path, index) => {
      const reason = refusal(kind, path);
      return reason === undefined ? [] : [{ path: ['sandbox', 'filesystem', kind, index], atKey: false, message: `${reason}; the sandbox refuses every call of this tool (SANDBOX_UNAVAILABLE)` }];
    }),
  );
}

/**
 * Where a declared sandbox goes beyond a gateway's ceiling, each at its field; paths are judged as written (`~/` from
 * the home folder, relative ones from the workspace), where the gateway judges them by their real paths.
 */
export function ceilingWarnings(declared: DeclaredSandbox, { ceiling, workspace }: { ceiling: SandboxCeiling; workspace: string }): SchemaProblem[] {
  const absolute = (path: string): string => (path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : isAbsolute(path) ? resolve(path) : resolve(workspace, path));
  return ceilingProblems(declared, ceiling, resolve(workspace), absolute).map((problem) => ({
    path: problem.path,
    atKey: false,
    message: `${problem.message}; the gateway refuses its calls (SANDBOX_UNAVAILABLE)`,
  }));
}
