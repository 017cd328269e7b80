import { ceilingDefaults, ceilingProblems, resolveToolSandbox, type DeclaredSandbox, type SandboxCeiling, type ToolSandbox } from '../core/index.js';
import type { Bubblewrap } from './bubblewrap.js';
import { guardedConflict, hostConflict, realDeclaredPath, workspaceConflict, type GuardedPaths, type HomeReads } from './bubblewrap-arguments.js';
import type { Launch } from './sandbox.js';
import { mergeGuards, writableRootsGuards } from './repository-guards.js';

/**
 * Why no tool may run in this workspace, or undefined: `/`, one holding a system or home folder (the run_as user's too), or the tools
 * repository itself (with the fix). The sandbox refuses the run; in every mode the workspace is not given to run_as.
 */
export function workspaceRefusal(workspace: string, guarded: GuardedPaths, runAsHome?: string): string | undefined {
  const unsafe = workspaceConflict(workspace, runAsHome);
  if (unsafe !== undefined) return `${unsafe}, which every tool could write; set workspace_root (or HLDP_WORKSPACE) to a project's folder`;
  if (guarded.protect.includes(workspace)) {
    return `it is ${workspace}, which no tool may change (the tools repository: a tool could commit a tool or drop a policy, and the next scan would serve it); set workspace_root (or HLDP_WORKSPACE) to another folder`;
  }
  return undefined;
}

/**
 * The sandbox a launch runs under: what the tool declares, within the ceiling (undefined: the operator's own
 * declaration, held to none), each declared path resolved to its real path once, by `real`.
 */
export function launchPolicy(declared: DeclaredSandbox | undefined, ceiling: SandboxCeiling | undefined, workspace: string): { ok: true; policy: ToolSandbox; real: (path: string) => string } | { ok: false; refusal: Launch } {
  // each declared path is resolved once for this launch, and the ceiling, the conflicts and the binds all judge that
  // one real path: a symlink in the workspace that a tool flips between two folders passed the ceiling on one
  // resolution and was bound at the other (review M, M3)
  const resolved = new Map<string, string>();
  const real = (path: string): string => {
    let found = resolved.get(path);
    if (found === undefined) resolved.set(path, (found = realDeclaredPath(path, workspace)));
    return found;
  };
  if (ceiling !== undefined) {
    const beyond = ceilingProblems(declared, ceiling, workspace, real);
    if (beyond.length > 0) return { ok: false, refusal: { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `this tool asks more of the sandbox than this gateway allows, so it does not run: ${beyond.map((problem) => problem.message).join('; ')}` } };
  }
  const declaredPolicy = resolveToolSandbox(declared, ceiling === undefined ? undefined : ceilingDefaults(ceiling));
  const policy: ToolSandbox = { ...declaredPolicy, filesystem: { read: declaredPolicy.filesystem.read.map(real), write: declaredPolicy.filesystem.write.map(real) } };
  return { ok: true, policy, real };
}

/**
 * The paths a sandboxed run is kept from: the gateway's own (`guarded`), and every repository in the workspace and in
 * each path the tool declares writable; or why the run may not start (fail closed: a declared path into the
 * gateway's own files, directly or by a symlink, is never bound). `reads` is asked only when nothing of the gateway's own is in the way.
 */
export function sandboxGuards(policy: ToolSandbox, workspace: string, guarded: GuardedPaths, bubblewrap: Extract<Bubblewrap, { ok: true }>, reads: () => HomeReads): { ok: true; guarded: GuardedPaths } | { ok: false; refusal: Launch } {
  const conflict = guardedConflict(policy, workspace, guarded) ?? hostConflict(policy, workspace, bubblewrap.system, [bubblewrap.path, process.execPath], reads());
  if (conflict !== undefined) return { ok: false, refusal: { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `this tool cannot run in the sandbox: ${conflict}` } };
  // every repository in the workspace as it is now: past the bound, none is left writable unnoticed (review N, N23)
  const repositories = writableRootsGuards([workspace]);
  if (!repositories.ok) return { ok: false, refusal: { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `no local tool runs in this workspace: ${repositories.reason}; set workspace_root (or HLDP_WORKSPACE) to a project's folder` } };
  // and in each path the tool declares writable: the same repositories of the user's, outside the workspace (review P, P7)
  const declared = policy.filesystem.write.length > 0 ? writableRootsGuards(policy.filesystem.write) : undefined;
  if (declared !== undefined && !declared.ok) return { ok: false, refusal: { ok: false, code: 'SANDBOX_UNAVAILABLE', message: `this tool cannot run in the sandbox: a path it declares writable cannot be protected: ${declared.reason}` } };
  return { ok: true, guarded: { ...guarded, repositories: declared === undefined ? repositories : mergeGuards([repositories, declared], [workspace, ...policy.filesystem.write]) } };
}
