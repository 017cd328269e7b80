import { readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { SYSTEM_FOLDERS } from './bubblewrap.js';
import { homeViews, viewedAs } from './home-views.js';
import { isInside } from './path-inside.js';

// What a tool may write in its workspace, one rule for the sandbox's binds (bubblewrap-arguments.ts) and for the
// gatekeeper's file methods, which write on the host outside any sandbox (review N, N25): they cannot drift apart.
// The git repositories in it are found by repository-guards.ts, the gatekeeper's refusal is write-refusal.ts.

/** The host's own kernel and device views and sockets: never bound from the host, whatever a tool declares. */
export const HOST_ONLY = ['/proc', '/sys', '/dev', '/run', '/var/run', '/boot'];

export { isInside } from './path-inside.js';

/** Where a host keeps its users' home folders, each entry one of them. */
const HOMES_FOLDER = '/home';

/**
 * Every home folder of this host, as given and real (a home reached through a symlink, /home/u -> /data/u or /home ->
 * /usr/home, review Q, Q4): the gateway user's ($HOME), the user a root gateway's tools run as (`runAsHome`, from its
 * passwd entry: tools run as them and can write what they can, review U, U2), /root, and each folder of /home. One
 * list for the workspace's rule and the declared paths' (bubblewrap-arguments.ts, declared-path-refusal.ts). A home
 * of `/` (some system users') is left out: the host's whole file system is refused on its own.
 */
export function homeFolders(runAsHome?: string): string[] {
  const homes = new Set<string>();
  const add = (home: string | undefined): void => {
    if (home === undefined || !isAbsolute(home) || resolve(home) === '/') return;
    homes.add(resolve(home));
    try {
      const real = realpathSync(home);
      if (real !== '/') homes.add(real);
    } catch {
      // a home folder that does not exist holds nothing to protect
    }
  };
  add(homedir());
  add('/root');
  add(runAsHome);
  let entries: string[] = [];
  try {
    entries = readdirSync(HOMES_FOLDER);
  } catch {
    // a host without /home keeps its homes elsewhere, named above
  }
  for (const entry of entries) add(join(HOMES_FOLDER, entry));
  return [...homes];
}

/**
 * Why a workspace cannot be given to tools, or undefined: `/` (a service started where systemd starts it, without
 * workspace_root: review K, K10), a folder holding the host's own or a system folder, or a home folder or one holding
 * it (the cwd an MCP client or a login shell gives: ~/.ssh/authorized_keys, ~/.bashrc, ~/.npmrc are what the user's
 * shell and programs run next, outside any sandbox; review N, N19), the run_as user's among them (`runAsHome`).
 * (A PATH folder inside a workspace is shown read-only on top of it instead.)
 */
export function workspaceConflict(workspace: string, runAsHome?: string): string | undefined {
  if (workspace === '/') return "the workspace is /, the host's whole file system";
  const held = [...HOST_ONLY, ...SYSTEM_FOLDERS].find((folder) => isInside(folder, workspace));
  if (held !== undefined) return `the workspace ${workspace} holds the host's ${held}`;
  const homes = homeFolders(runAsHome);
  const home = homes.find((folder) => isInside(folder, workspace));
  if (home !== undefined) return `the workspace ${workspace} ${home === workspace ? 'is' : 'holds'} the home folder ${home} (${DOT_ENTRIES})`;
  if (workspace === '/home' || dirname(workspace) === '/home') return `the workspace ${workspace} is or holds a home folder under /home`;
  return viewConflict(workspace, homes);
}

const DOT_ENTRIES = "its dot-entries, such as .ssh/authorized_keys and .bashrc, are what its user's shell and programs run next";

/**
 * The same rule judged by identity (review V, V5's leftover): a workspace that is another view of a home (a bind mount
 * of /home or of a home elsewhere) or holds one, or holds a view of a home's dot-entry, gives tools the home as surely
 * as its own path would. A workspace inside a view of a home's other folders is a project there, allowed as by path.
 */
function viewConflict(workspace: string, homes: readonly string[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(workspace);
  } catch {
    // a workspace that does not exist shows nothing yet; the launch judges the one it makes
    return undefined;
  }
  for (const seen of viewedAs(real, homes, homeViews(homes))) {
    const twice = `${seen.view} is ${seen.shows} under another path: the same folder, mounted twice`;
    if (isInside(real, seen.view)) {
      const home = homes.find((folder) => isInside(folder, seen.path));
      const how = seen.view === real ? 'the same folder, mounted twice' : twice;
      if (home !== undefined) return `the workspace ${workspace} is ${seen.path} under another path (${how}), which ${home === seen.path ? 'is' : 'holds'} the home folder ${home} (${DOT_ENTRIES})`;
      continue;
    }
    const home = homes.find((folder) => isInside(folder, seen.shows) || isDotEntry(seen.shows, folder));
    if (home !== undefined) return `the workspace ${workspace} holds ${seen.view} (${twice}), ${isInside(home, seen.shows) ? `which is or holds the home folder ${home}` : `a dot-entry of the home folder ${home}`} (${DOT_ENTRIES})`;
  }
  return undefined;
}

const isDotEntry = (path: string, home: string): boolean => isInside(path, home) && path !== home && path.slice(home.length + 1).startsWith('.');

/** The absolute folders of a PATH (the gateway's own: `npx` puts a project's node_modules/.bin first). */
export function pathFolders(path: string | undefined = process.env.PATH): string[] {
  return (path ?? '').split(delimiter).filter((folder) => isAbsolute(folder));
}

/**
 * The read-only paths that apply inside a workspace: of `protect` (the tools repository, this package's own files)
 * and the PATH folders, those not holding the workspace (the workspace wins where it is inside one).
 */
export function readOnlyInside(workspace: string, protect: readonly string[]): string[] {
  return protect.filter((path) => !isInside(workspace, path));
}
