import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { ToolSandbox } from '../core/index.js';
import { isolationArguments, STATUS_FD, systemArguments, type SystemMount } from './bubblewrap.js';

/** Paths of the host that tools must not see, or must not change, whatever they declare. */
export interface GuardedPaths {
  /** hidden: the gateway's cache, data directory, receipts database, config file */
  hide: readonly string[];
  /** read-only: the tools repository, so no tool can register another */
  protect: readonly string[];
}

/** Everything a bubblewrap command line is built from. */
export interface BubblewrapInput {
  system: readonly SystemMount[];
  /** resolved, real */
  workspace: string;
  /** the working directory inside; none: whoever runs inside enters it (a waiting launcher's script) */
  cwd?: string;
  policy: ToolSandbox;
  guarded: GuardedPaths;
  /** where /etc/resolv.conf points, bound for tools with network */
  resolver?: string;
}

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
      if (hidden !== undefined) return `the tool declares filesystem.${kind} '${declared}' (really ${real}), which is inside the gateway's hidden path ${hidden}: no tool may see it`;
      // the workspace is writable wherever it is (a read-only folder around it does not cover it): so is what is in it
      const protectedPath = kind === 'write' && !isInside(real, workspace) ? guarded.protect.find((folder) => isInside(real, folder)) : undefined;
      if (protectedPath !== undefined) return `the tool declares filesystem.write '${declared}' (really ${real}), which is inside the read-only path ${protectedPath}: no tool may change it`;
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

const isInside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);

/**
 * bubblewrap's arguments, up to and including `--`: every namespace, no capabilities, the system read-only, a
 * private /proc, /dev and /tmp, the workspace writable, the declared paths, then the guarded paths hidden or made
 * read-only on top of whatever exposed them; the status JSON on `STATUS_FD`.
 */
export function bubblewrapArguments(input: BubblewrapInput): string[] {
  const { policy, workspace } = input;
  const args = [...isolationArguments(policy.network), '--json-status-fd', String(STATUS_FD), ...systemArguments(input.system)];
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
  const readOnly: string[] = [];
  for (const path of input.guarded.protect) {
    // a read-only folder around the workspace would cover its writable bind: the workspace wins there
    if (isInside(workspace, path) || !exposed.some((folder) => isInside(path, folder))) continue;
    if (statSync(path, { throwIfNoEntry: false })) (args.push('--ro-bind', path, path), readOnly.push(path));
  }
  const hidden: string[] = [];
  const pinned = new Set<string>();
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
      args.push('--tmpfs', path);
      hidden.push(path);
    } else if (info) args.push('--ro-bind', '/dev/null', path);
  }
  if (input.cwd !== undefined) args.push('--chdir', input.cwd);
  args.push('--');
  return args;
}
