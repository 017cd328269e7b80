import { chownSync, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { hostProgram, SYSTEM_FOLDERS } from './bubblewrap.js';

/** `sandbox.run_as` as the operator writes it: a user's name, or numbers. */
export type RunAsSetting = string | { uid: number; gid: number };

/** The unprivileged user a root gateway's tools run as. */
export interface RunAs {
  uid: number;
  gid: number;
  /** the name it was given by, or found under in /etc/passwd */
  name?: string;
  /** its home folder, from the passwd file (by name, or by uid for numbers): guarded as every home is (review U, U2) */
  home?: string;
}

/** The user a root gateway's tools run as when the operator names none: `nobody`, or 65534 where /etc/passwd lacks it. */
export const DEFAULT_RUN_AS = 'nobody';

const NOBODY_ID = 65534;

interface PasswdEntry {
  uid: number;
  gid: number;
  home?: string;
}

/** A user's uid, primary gid and home folder from a passwd file, by name or by uid, or undefined. */
function passwdEntry(user: string | number, passwd: string): PasswdEntry | undefined {
  let text: string;
  try {
    text = readFileSync(passwd, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [name, , uid, gid, , home] = line.split(':');
    if (!/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) continue;
    if (typeof user === 'string' ? name === user : Number(uid) === user) return { uid: Number(uid), gid: Number(gid), ...(home ? { home } : {}) };
  }
  return undefined;
}

/**
 * Who a root gateway's tools run as: undefined when they run as root because the operator said so (`run_as: root`,
 * or uid 0); throws, naming the fix, for a user that does not exist here.
 */
export function resolveRunAs(setting: RunAsSetting | undefined, passwd = '/etc/passwd'): RunAs | undefined {
  const resolved = resolvedRunAs(setting, passwd);
  if (resolved !== undefined && resolved.gid === 0) throw new Error(`sandbox.run_as ${runAsGroupRootProblem(setting, resolved)}`);
  return resolved;
}

/**
 * Why a `sandbox.run_as` that is not root may not be used (to follow the setting's name), or undefined: a gid of 0 (given as numbers, or a user
 * whose primary group is root) makes every tool a member of the group root, which reads every file root's group may
 * read (review O, addendum). Checked when the config is read, so that the gateway does not start with it.
 */
export function runAsSettingProblem(setting: RunAsSetting | undefined, passwd = '/etc/passwd'): string | undefined {
  let resolved: RunAs | undefined;
  try {
    resolved = resolvedRunAs(setting, passwd);
  } catch {
    // a user this host lacks is said at each call, as before: the config may be meant for another host
    return undefined;
  }
  return resolved !== undefined && resolved.gid === 0 ? runAsGroupRootProblem(setting, resolved) : undefined;
}

function runAsGroupRootProblem(setting: RunAsSetting | undefined, resolved: RunAs): string {
  const given = typeof setting === 'string' && !/^\d+$/.test(setting) ? `names the user '${setting}', whose primary group is root (gid 0)` : 'gives gid 0, the group root';
  return `${given}: tools would run as ${describeRunAs(resolved)} and read every file the group root may read; give a gid of its own (e.g. {uid: ${resolved.uid}, gid: ${resolved.uid}}), or run_as: root to run tools as root`;
}

function resolvedRunAs(setting: RunAsSetting | undefined, passwd: string): RunAs | undefined {
  if (setting === undefined) {
    const nobody = passwdEntry(DEFAULT_RUN_AS, passwd);
    return { uid: nobody?.uid ?? NOBODY_ID, gid: nobody?.gid ?? NOBODY_ID, name: DEFAULT_RUN_AS, ...(nobody?.home ? { home: nobody.home } : {}) };
  }
  const numbers = typeof setting === 'object' ? setting : /^\d+$/.test(setting) ? { uid: Number(setting), gid: Number(setting) } : undefined;
  if (numbers !== undefined) {
    if (numbers.uid === 0) return undefined;
    // the home of whoever has that uid here: a tool running as them can write it as they can
    const home = passwdEntry(numbers.uid, passwd)?.home;
    return { uid: numbers.uid, gid: numbers.gid, ...(home ? { home } : {}) };
  }
  const entry = passwdEntry(setting as string, passwd);
  if (entry === undefined) throw new Error(`sandbox.run_as names the user '${setting}', who is not in ${passwd}: name a user of this host, or give {uid, gid}`);
  return entry.uid === 0 ? undefined : { ...entry, name: setting as string };
}

/**
 * The home folder of the user a root gateway with this `sandbox.run_as` runs its tools as, or undefined (root, or a
 * user this host lacks): `hldp validate` guards it as that gateway's launches do, whoever runs validate.
 */
export function runAsHome(setting: RunAsSetting | undefined, passwd = '/etc/passwd'): string | undefined {
  try {
    return resolvedRunAs(setting, passwd)?.home;
  } catch {
    return undefined;
  }
}

/** `uid 65534 (nobody)`, for messages. */
export function describeRunAs(runAs: RunAs): string {
  return `uid ${runAs.uid}, gid ${runAs.gid}${runAs.name ? ` (${runAs.name})` : ''}`;
}

/**
 * The command that becomes the user before it execs the tool (util-linux's setpriv): real, effective and saved ids,
 * no supplementary groups, no inheritable capabilities, an empty bounding set and no_new_privs. Run by root (or, in
 * the sandbox, by its first process, which keeps only CAP_SETUID, CAP_SETGID and CAP_SETPCAP for it): the kernel
 * clears every capability when the last of its uids leaves 0, and no_new_privs keeps a setuid program from raising
 * it. bubblewrap sets no_new_privs itself; with the sandbox off nothing else did, and a tool as nobody that ran a
 * setuid-root program (su, mount, passwd) ran it with euid 0 (review O, O13).
 */
export function dropArguments(runAs: RunAs): string[] {
  return [hostProgram('setpriv'), `--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
}

/**
 * Gives a root-owned workspace folder (the folder itself, not what it holds) to the user tools run as, so that they
 * can make files in it; says what it did (or why it did not), or undefined when nothing was to be done. A folder
 * another user owns is left as it is (its owner chose its modes), and so is the gateway's home folder or one holding
 * it, a folder inside a system folder (/etc/x, /opt/x: a program of the host may read what is there), and a
 * shared one with the sticky bit (/tmp, /var/tmp: its owner may rename or delete every user's entries; review O, O4).
 */
export function giveWorkspace(workspace: string, runAs: RunAs): string | undefined {
  const info = statSync(workspace, { throwIfNoEntry: false });
  if (!info?.isDirectory() || info.uid !== 0) return undefined;
  const home = homedir();
  if (home === workspace || home.startsWith(workspace.endsWith('/') ? workspace : `${workspace}/`)) return undefined;
  const kept = `the workspace ${workspace} is not given to ${describeRunAs(runAs)}, whom this root gateway runs its tools as, and keeps its owner, root`;
  if ((info.mode & 0o1000) !== 0) return `${kept}: it is a shared folder (sticky, as /tmp), whose owner could rename or delete every user's files in it; set workspace_root (or HLDP_WORKSPACE) to a folder of its own`;
  const system = SYSTEM_FOLDERS.find((folder) => workspace.startsWith(`${folder}/`));
  if (system !== undefined) return `${kept}: it is inside the system folder ${system}; set workspace_root (or HLDP_WORKSPACE) to a project's folder`;
  // a git working tree: git refuses a repository whose top folder another user owns ("dubious ownership"), so the
  // quick start's `npx hldp serve` as root gave the user's checkout away and root's next `git status` failed (review O, O9)
  if (existsSync(join(workspace, '.git'))) return `${kept}: it is a git repository's working tree, and git refuses a repository whose folder another user owns (detected dubious ownership); tools can write where root allows them, or set workspace_root (or HLDP_WORKSPACE) to a folder of its own`;
  chownSync(workspace, runAs.uid, runAs.gid);
  return `the workspace ${workspace} (owned by root) now belongs to ${describeRunAs(runAs)}, whom this root gateway runs its tools as, so that they can write in it (its contents keep their owners)`;
}
