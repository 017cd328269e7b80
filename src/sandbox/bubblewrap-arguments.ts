import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { ToolSandbox } from '../core/index.js';
import { isolationArguments, STATUS_FD, SYSTEM_FOLDERS, systemArguments, type SystemMount } from './bubblewrap.js';
import { writableRootsGuards, type RepositoryGuards } from './repository-guards.js';
import { homeReadRefusal, homeWriteRefusal } from './home-rules.js';
import { homeViews, type HomeView } from './home-views.js';
import { SECCOMP_ARGUMENTS } from './seccomp-descriptor.js';
import { homeFolders, HOST_ONLY, isInside, readOnlyInside } from './workspace-rules.js';

export { workspaceConflict } from './workspace-rules.js';

/** Paths of the host that tools must not see, or must not change, whatever they declare. */
export interface GuardedPaths {
  /** hidden: the gateway's cache, data directory, receipts database, config file */
  hide: readonly string[];
  /** read-only: the tools repository, so no tool can register another */
  protect: readonly string[];
  /** the workspace's git repositories as found at this launch (see `repositoryGuards`); looked for here when absent */
  repositories?: Extract<RepositoryGuards, { ok: true }>;
}

/** Everything a bubblewrap command line is built from. */
export interface BubblewrapInput {
  system: readonly SystemMount[];
  /** resolved, real */
  workspace: string;
  /** the working directory inside; none: whoever runs inside enters it (a waiting launcher's script) */
  cwd?: string;
  /** a folder of the gateway's own, real, bound read-only over everything else (an MCP server's working folder) */
  shownFolder?: string;
  policy: ToolSandbox;
  guarded: GuardedPaths;
  /** where /etc/resolv.conf points, bound for tools with network */
  resolver?: string;
  /** whether bubblewrap sizes a tmpfs: the run's /tmp then holds at most its memory limit, a hiding folder 1 MiB */
  tmpfsSize?: boolean;
  /** the tool becomes another user inside (a root gateway's `sandbox.run_as`): no user namespace, a /tmp it can write */
  dropping?: boolean;
}

/** What a folder that hides a guarded path may hold: it is there to be empty. */
const HIDING_TMPFS_BYTES = 1 << 20;

/** A declared path as an absolute one: `~/x` from the home folder, a relative one from the workspace. */
export function declaredPath(path: string, workspace: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}

/**
 * A declared path as the real one it names: every symlink resolved; a path that does not exist yet, its nearest
 * existing parent's real path with the rest appended (a committed symlink cannot point a declaration elsewhere).
 */
export function realDeclaredPath(path: string, workspace: string): string {
  const absolute = declaredPath(path, workspace);
  const rest: string[] = [];
  for (let existing = absolute; ; existing = dirname(existing)) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      if (dirname(existing) === existing) return absolute;
      rest.push(basename(existing));
    }
  }
}

/**
 * Why a tool's declared paths cannot be granted, or undefined: a declared path (resolved) inside or equal to a
 * hidden path, or a declared writable one inside or equal to a read-only path and outside the workspace. (A guarded path inside a declared one
 * is hidden or made read-only on top of it instead.) Reading inside a read-only path is what read-only allows.
 */
export function guardedConflict(policy: ToolSandbox, workspace: string, guarded: GuardedPaths): string | undefined {
  for (const kind of ['read', 'write'] as const) {
    for (const declared of policy.filesystem[kind]) {
      const real = realDeclaredPath(declared, workspace);
      const hidden = guarded.hide.find((folder) => isInside(real, folder));
      if (hidden !== undefined) return `the tool declares filesystem.${kind} '${declared}' (really ${real}), which is inside the hidden path ${hidden} (the gateway's own files, a secret of the host, or sandbox.hide): no tool may see it`;
      // the workspace is writable wherever it is (a read-only folder around it does not cover it): so is what is in it
      const protectedPath = kind === 'write' && !isInside(real, workspace) ? guarded.protect.find((folder) => isInside(real, folder)) : undefined;
      if (protectedPath !== undefined) return `the tool declares filesystem.write '${declared}' (really ${real}), which is inside the read-only path ${protectedPath}: no tool may change it`;
    }
  }
  return undefined;
}


/** Who may reach the host's home folders and its shared /tmp through a declared path (home-rules.ts, sharedTempRefusal). */
export interface HomeReads {
  /** the operator's own declaration (an MCP server's config): not held to this rule, as it is not to the ceiling */
  operator?: boolean;
  /** the home of the user a root gateway's tools run as (`sandbox.run_as`), guarded as every home (review U, U2) */
  runAsHome?: string;
  /** `sandbox.ceiling.readable_roots`, real: a home path, or one in the host's shared /tmp, inside one of them may be read */
  readableRoots?: readonly string[];
  /** `sandbox.ceiling.writable_roots`, real: a path in a home or in the host's shared /tmp inside one of them may be written */
  writableRoots?: readonly string[];
}

/** The host's folders shared by every program of every user, where programs keep their unix sockets. */
const SHARED_TEMP = ['/tmp', '/var/tmp'];

/**
 * Why a definition may not be given `real` (review T, T4): the host's /tmp or /var/tmp, a folder holding one, or one
 * inside them, outside the workspace — unless the operator lists it in `sandbox.ceiling.readable_roots` (to read) or
 * `writable_roots` (to write). Programs of the gateway's user keep their unix sockets there (tmux's
 * /tmp/tmux-UID/default, ssh-agent's /tmp/ssh-XXXX/agent.N, X11, gpg-agent, language servers), and a socket bound into
 * the sandbox is a way out that neither a read-only bind nor a private network stops: connect(2) asks only for write
 * permission on the socket, which the user's own tools have. Through tmux a tool typed a command that ran on the host,
 * outside the sandbox; through ssh-agent it could sign with the user's keys. A run's own /tmp is private, and needs no
 * declaration.
 */
function sharedTempRefusal(kind: 'read' | 'write', real: string, workspace: string, reads: HomeReads): string | undefined {
  if (reads.operator || isInside(real, workspace)) return undefined;
  const shared = SHARED_TEMP.find((folder) => isInside(real, folder) || isInside(folder, real));
  if (shared === undefined) return undefined;
  const key = kind === 'read' ? 'readable_roots' : 'writable_roots';
  if (((kind === 'read' ? reads.readableRoots : reads.writableRoots) ?? []).some((root) => isInside(real, root))) return undefined;
  const where = real === shared ? `the host's shared ${shared}` : isInside(real, shared) ? `inside the host's shared ${shared}` : `a folder holding the host's shared ${shared}`;
  return `${where}, where the user's programs keep their unix sockets (tmux, ssh-agent, gpg-agent, X11): a tool that reaches one runs commands outside the sandbox, which a read-only bind does not stop; a definition may be given it only where the operator lists it in sandbox.ceiling.${key} (a run's own /tmp is private and needs no declaration)`;
}

/**
 * Why a tool's declared paths would give it the host, or undefined (review K, K1). Declarations come from a
 * repository anyone with push access writes, so none may name: `/`, or the host's /proc, /sys, /dev, /run (the
 * gateway's environment in /proc/PID/environ, the kernel's settings, sockets such as Docker's) — to read or to write;
 * nor, to write, a system or PATH folder, the folder of the gateway's own node or of bubblewrap (or a folder holding
 * one), or any part of a home folder of the host outside the ceiling's writable_roots (home-rules.ts): programs the
 * gateway runs on the host, and its users' shells, would run what a tool wrote there. What lies inside the workspace
 * is the workspace's (writable anyway), but a declaration holding a system folder never is.
 */
export function hostConflict(policy: ToolSandbox, workspace: string, system: readonly SystemMount[], programs: readonly string[], reads: HomeReads = {}): string | undefined {
  const homes = homeFolders(reads.runAsHome);
  // where the mount table shows a home again under another path (read only when a path is declared)
  let views: HomeView[] | undefined;
  const homeViewsNow = (): HomeView[] => (views ??= homeViews(homes));
  const systemFolders = [...SYSTEM_FOLDERS, ...system.filter((mount) => mount.symlink === undefined).map((mount) => mount.path), ...programs.map((program) => dirname(program))];
  for (const kind of ['read', 'write'] as const) {
    for (const declared of policy.filesystem[kind]) {
      const real = realDeclaredPath(declared, workspace);
      const named = `the tool declares filesystem.${kind} '${declared}'${real === declared ? '' : ` (really ${real})`}`;
      if (real === '/') return `${named}, the host's whole file system: no tool may be given it`;
      const hostOnly = HOST_ONLY.find((folder) => isInside(real, folder) || isInside(folder, real));
      if (hostOnly !== undefined) return `${named}, which is or holds the host's ${hostOnly}: no tool may be given it`;
      if (kind === 'read') {
        const refusal = homeReadRefusal(real, homes, { ...(reads.operator ? { operator: true } : {}), ...(reads.readableRoots ? { roots: reads.readableRoots } : {}) }, homeViewsNow());
        if (refusal !== undefined) return `${named}, ${refusal}`;
        const sharedTemp = sharedTempRefusal(kind, real, workspace, reads);
        if (sharedTemp !== undefined) return `${named}, ${sharedTemp}`;
        continue;
      }
      const holds = systemFolders.find((folder) => isInside(folder, real));
      if (holds !== undefined) return `${named}, which holds the system folder ${holds}: no tool may change it`;
      if (isInside(real, workspace)) continue;
      const within = systemFolders.find((folder) => isInside(real, folder));
      if (within !== undefined) return `${named}, which is inside the system folder ${within}: no tool may change it`;
      const home = homeWriteRefusal(real, homes, { ...(reads.operator ? { operator: true } : {}), ...(reads.writableRoots ? { roots: reads.writableRoots } : {}) }, homeViewsNow());
      if (home !== undefined) return `${named}, ${home}`;
      const sharedTemp = sharedTempRefusal(kind, real, workspace, reads);
      if (sharedTemp !== undefined) return `${named}, ${sharedTemp}`;
    }
  }
  return undefined;
}

/** The folders strictly between the innermost of `folders` holding `path` and `path`, outermost first. */
function foldersBetween(holders: readonly string[], path: string): string[] {
  const holder = holders.filter((folder) => isInside(path, folder) && folder !== path).sort((a, b) => b.length - a.length)[0];
  if (holder === undefined) return [];
  const folders: string[] = [];
  for (let folder = dirname(path); folder !== holder && isInside(folder, holder); folder = dirname(folder)) folders.unshift(folder);
  return folders;
}


/** Where the sandbox starts: its own root, and the folders it makes itself. */
const SANDBOX_OWN = ['/', '/tmp', '/proc', '/dev'];

/**
 * The folders on the way to each path bound from the host, made 0755 before it is bound: bubblewrap run by root makes
 * them 0700, which a tool that becomes another user could not pass (a workspace under /work, a PATH folder in a
 * project, were reachable only as the working directory). `beforeSystem`: those outside /tmp, made before the system
 * is bound; else those in the run's /tmp, made once it is there.
 */
function openFolders(input: BubblewrapInput, beforeSystem: boolean): string[] {
  const { policy, workspace } = input;
  const system = input.system.filter((mount) => mount.symlink === undefined).map((mount) => mount.path);
  const bound = [...system, workspace, ...(input.shownFolder === undefined ? [] : [input.shownFolder]), ...(policy.network && input.resolver ? [input.resolver] : []), ...[...policy.filesystem.read, ...policy.filesystem.write].map((declared) => realDeclaredPath(declared, workspace))];
  const folders = new Set<string>();
  for (const path of bound) {
    // a folder inside a bound system folder is the host's: it is there already, and never to be made
    for (let folder = dirname(path); !SANDBOX_OWN.includes(folder) && !system.some((mount) => isInside(folder, mount)); folder = dirname(folder)) {
      if (isInside(folder, '/tmp') !== beforeSystem) folders.add(folder);
    }
  }
  // outermost first: each is made inside the one before
  return [...folders].sort((a, b) => a.length - b.length).flatMap((folder) => ['--perms', '0755', '--dir', folder]);
}

/**
 * bubblewrap's arguments, up to and including `--`: every namespace, no capabilities, the system read-only, a
 * private /proc, /dev and /tmp, the workspace writable, the declared paths, then the guarded paths hidden or made
 * read-only on top of whatever exposed them; the status JSON on `STATUS_FD`, the seccomp program from `SECCOMP_FD`.
 */
export function bubblewrapArguments(input: BubblewrapInput): string[] {
  const { policy, workspace } = input;
  const dropping = input.dropping === true;
  // the system-call filter (seccomp-filter.ts) from its descriptor: no unix socket of the host's is reachable from
  // inside, whatever folder holds it (review U, U1)
  const args = [...isolationArguments(policy.network, dropping), '--json-status-fd', String(STATUS_FD), ...SECCOMP_ARGUMENTS];
  if (dropping) args.push(...openFolders(input, true));
  args.push(...systemArguments(input.system, input.tmpfsSize ? policy.limits.memory : undefined, dropping));
  if (dropping) args.push(...openFolders(input, false));
  const exposed: string[] = input.system.filter((mount) => mount.symlink === undefined).map((mount) => mount.path);
  if (policy.network && input.resolver) {
    args.push('--ro-bind-try', input.resolver, input.resolver);
    exposed.push(input.resolver);
  }
  for (const path of policy.filesystem.read.map((declared) => realDeclaredPath(declared, workspace))) {
    args.push('--ro-bind-try', path, path);
    exposed.push(path);
  }
  args.push('--bind', workspace, workspace);
  exposed.push(workspace);
  const writable = [workspace];
  for (const path of policy.filesystem.write.map((declared) => realDeclaredPath(declared, workspace))) {
    args.push('--bind-try', path, path);
    exposed.push(path);
    writable.push(path);
  }
  // each git repository of the workspace (its own, nested ones, submodules): its hooks and config (core.hooksPath,
  // core.fsmonitor, diff.external…) name programs git runs for whoever next uses the repository, outside any sandbox:
  // read-only, after every writable bind that could cover them; its objects, refs and index stay writable, so tools
  // still commit (review K, K19; review N, N23). Each .git and the folders on the way to it are pinned first (a mount
  // point cannot be renamed): a repository moved aside and replaced would take its protection with it
  const repositories = input.guarded.repositories ?? writableRootsGuards(writable);
  const pinned = new Set<string>();
  if (repositories.ok) {
    for (const folder of repositories.pinned) (args.push('--bind', folder, folder), pinned.add(folder));
    for (const path of repositories.readOnly) args.push('--ro-bind', path, path);
  }
  const readOnly: string[] = [];
  // a system or PATH folder inside something writable (a workspace holding a project's node_modules/.bin, which
  // `npx hldp serve` puts on the gateway's PATH) is shown read-only again on top of it: the gateway runs programs
  // from them; where the workspace is inside one, the workspace wins, as for the guarded paths
  for (const mount of input.system) {
    if (mount.symlink !== undefined || isInside(workspace, mount.path) || !writable.some((folder) => isInside(mount.path, folder))) continue;
    args.push('--ro-bind', mount.path, mount.path);
    readOnly.push(mount.path);
  }
  // a read-only folder around the workspace would cover its writable bind: the workspace wins there
  for (const path of readOnlyInside(workspace, input.guarded.protect)) {
    if (!exposed.some((folder) => isInside(path, folder))) continue;
    if (statSync(path, { throwIfNoEntry: false })) (args.push('--ro-bind', path, path), readOnly.push(path));
  }
  const hidden: string[] = [];
  // shortest first: a hidden folder hides what is inside it, with nothing more to do for those
  for (const path of [...input.guarded.hide].sort((a, b) => a.length - b.length)) {
    if (!exposed.some((folder) => isInside(path, folder)) || hidden.some((folder) => isInside(path, folder))) continue;
    const info = statSync(path, { throwIfNoEntry: false });
    // a hidden path is hidden by its name: were a folder on the way to it renamed (mv .local x), its data would be
    // in plain sight under the new name, here and for the gatekeeper's file methods. Each folder between the
    // writable one holding it and it is bound onto itself, a mount point, which rename(2) refuses (EBUSY); in a
    // read-only folder nothing can be renamed
    if (info) {
      for (const folder of foldersBetween(writable, path)) {
        if (pinned.has(folder) || readOnly.some((protectedPath) => isInside(folder, protectedPath))) continue;
        pinned.add(folder);
        args.push('--bind', folder, folder);
      }
    }
    if (info?.isDirectory()) {
      args.push(...(input.tmpfsSize ? ['--size', String(HIDING_TMPFS_BYTES)] : []), '--tmpfs', path);
      hidden.push(path);
    } else if (info) args.push('--ro-bind', '/dev/null', path);
  }
  if (input.shownFolder !== undefined) {
    // a hidden folder holding it (the gateway's data folder) is an empty tmpfs: the folders on the way are made there,
    // open (0755), so that a run that drops to another user can enter it
    const holder = hidden.filter((folder) => isInside(input.shownFolder!, folder) && folder !== input.shownFolder).sort((a, b) => b.length - a.length)[0];
    if (holder !== undefined) for (const folder of foldersBetween([holder], input.shownFolder)) args.push('--perms', '0755', '--dir', folder);
    args.push('--ro-bind', input.shownFolder, input.shownFolder);
  }
  if (input.cwd !== undefined) args.push('--chdir', input.cwd);
  args.push('--');
  return args;
}
