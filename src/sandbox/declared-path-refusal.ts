import type { ToolSandbox } from '../core/index.js';
import { guardedConflict, hostConflict, realDeclaredPath } from './bubblewrap-arguments.js';
import { knownSecrets } from './host-secrets.js';

/** What a gateway guards, as far as it is known without starting one: its own files hidden, its repository and code read-only. */
export interface DeclaredPathRules {
  /** real, as the gateway resolves it */
  workspace: string;
  /** absolute */
  hide: readonly string[];
  protect: readonly string[];
  /** `sandbox.ceiling.readable_roots`, absolute: where a definition may read the home folder's dot-entries */
  readableRoots?: readonly string[];
  /** `sandbox.ceiling.writable_roots`, absolute: where a definition may write in a home folder or the host's shared /tmp */
  writableRoots?: readonly string[];
  /** the home of the user `sandbox.run_as` names, guarded as every home folder is */
  runAsHome?: string;
}

/**
 * Why the sandbox would refuse every call of a tool declaring `path` under `sandbox.filesystem.<kind>`, or undefined:
 * the same rules a launch applies (guardedConflict, hostConflict), judged one path at a time so each is named. The
 * host's known secrets are hidden as a root gateway hides them.
 */
export function declaredPathRefusal(kind: 'read' | 'write', path: string, rules: DeclaredPathRules): string | undefined {
  const policy: ToolSandbox = { network: false, unix_sockets: false, filesystem: { read: kind === 'read' ? [path] : [], write: kind === 'write' ? [path] : [] }, limits: {} as ToolSandbox['limits'] };
  // guarded paths are compared by their real paths, as the gateway resolves them at its start
  const real = (paths: readonly string[]): string[] => paths.map((guarded) => realDeclaredPath(guarded, rules.workspace));
  const guarded = { hide: real([...rules.hide, ...knownSecrets()]), protect: real(rules.protect) };
  return guardedConflict(policy, rules.workspace, guarded) ?? hostConflict(policy, rules.workspace, [], [process.execPath], {
    ...(rules.readableRoots ? { readableRoots: real(rules.readableRoots) } : {}),
    ...(rules.writableRoots ? { writableRoots: real(rules.writableRoots) } : {}),
    ...(rules.runAsHome ? { runAsHome: rules.runAsHome } : {}),
  });
}
