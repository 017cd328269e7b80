import { spawn } from 'node:child_process';
import { closeSync, fchownSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openBindSources, passedBinds, type HeldDescriptors } from './bind-descriptors.js';
import { closeScript, discard, type LauncherPool, type WaitingLauncher } from './launcher-pool.js';
import { stdioWith } from './passed-descriptors.js';
import type { PidsCgroups, RunCgroup } from './pids-cgroup.js';
import { cgroupJoin } from './resource-limits.js';
import { scriptFolder } from './script-folder.js';
import { openSeccompProgram, SECCOMP_FD } from './seccomp-descriptor.js';
import { CONTROL_FD, SCRIPT_FD, SCRIPT_SHELL_NAME, waitForScript, warmScript, type WarmRun } from './warm-script.js';

/** The shell every launcher waits in, by its absolute path: launchers start with an empty environment, no PATH. */
export const SHELL = '/bin/sh';

/** A run to start from a launcher: what sets it apart (`launcher`, the key of the waiting ones) and its script. */
export interface WarmCommand {
  /** bubblewrap and its arguments up to `--`, or the namespace's launcher (setpriv, unshare) */
  launcher: readonly string[];
  /** where the launcher starts (the run's script enters the run's working directory) */
  workspace: string;
  /** bubblewrap's status descriptor */
  statusFd?: number;
  /** the sources bubblewrap binds by descriptor (`--bind-fd`), in order, and the gateway's descriptors of them opened for this run */
  binds?: { sources: readonly string[]; held: HeldDescriptors };
  /** who the launcher's shell is (a root gateway's `run_as`, become before it): its script is theirs to read */
  reader?: { uid: number; gid: number };
  /** bubblewrap's seccomp program (`SECCOMP_FD`), which lets the tool make unix sockets or not */
  seccomp?: { unixSockets: boolean };
  run: Omit<WarmRun, 'argv'> & { argv: readonly string[] };
}

let scriptCounter = 0;

/**
 * A new, empty script file, readable by its owner only (`reader`, else this process's user), with no name left: the
 * gateway's descriptor to write it, and the launcher's to read it (to be closed here once the launcher has it).
 */
function newScriptFile(reader: { uid: number; gid: number } | undefined): { write: number; read: number } {
  scriptCounter += 1;
  const path = join(scriptFolder(), `run-${scriptCounter}.sh`);
  const write = openSync(path, 'wx', 0o600);
  try {
    // the shell opens it afresh (`. /dev/fd/5`), which checks its owner and mode: one that dropped to run_as reads
    // it as run_as (its folder, 0700 root's, keeps every other process of that user from its name meanwhile)
    if (reader !== undefined) fchownSync(write, reader.uid, reader.gid);
    const read = openSync(path, 'r');
    return { write, read };
  } catch (error) {
    closeSync(write);
    throw error;
  } finally {
    unlinkSync(path);
  }
}

/**
 * The descriptor of a launcher's lifeline: a pipe from the gateway that it never writes, so that it reads end of file
 * only when the gateway is gone (or has let go of the launcher, which it stops then anyway).
 */
export const LIFELINE_FD = 6;

/**
 * The group guard: a shell in the launcher's process group, holding nothing of the run but the lifeline, that kills
 * the whole group when the lifeline ends. bubblewrap's --die-with-parent leaves a gap: a gateway killed after
 * bubblewrap cloned its sandbox but before it released it (a few ms of its start) takes the outer bubblewrap with it,
 * while the sandbox's first process waits, before it has asked to die with its parent, for a word that never comes:
 * it was left running (6-8 launchers in 20 rounds of a gateway killed with SIGKILL). The same holds for any launcher
 * whose wrapper (the cgroup's shell, setpriv) is still starting when the gateway dies: the parent-death signal is
 * asked for by whoever has the gateway as parent at that moment, and by no one if that is too late. The guard is
 * forked before anything else of the launcher, so its read starts while the gateway is surely alive, or ends at
 * once; it is outside the run's cgroup. A run's end kills the group, and the guard with it.
 */
export function groupGuard(): string {
  return `(exec 0<&- 1>&- 2>&- 3>&- ${CONTROL_FD}>&- ${SCRIPT_FD}<&-; read -r line <&${LIFELINE_FD}; kill -9 0) &`;
}

/** `$0` of the launcher's first shell, which forks the guard (and joins the cgroup) before it execs the launcher. */
export const GUARD_SHELL_NAME = 'hldp-guard';

/**
 * The command line of one launcher: the guard, then join the cgroup (when there is one), then the launcher, then a
 * shell waiting for its script on `SCRIPT_FD`. In a namespace's launcher the shell is the init, and joins the
 * cgroup itself before anything forks.
 */
function launcherArgv(command: WarmCommand, procs: string | undefined): string[] {
  const init = command.run.init === true;
  const waiting = init && procs ? `${cgroupJoin(procs)}\n${waitForScript()}` : waitForScript();
  const launcher = [...command.launcher, SHELL, '-c', waiting, SCRIPT_SHELL_NAME];
  const prelude = [groupGuard(), ...(!init && procs ? [cgroupJoin(procs)] : [])];
  return [SHELL, '-c', `${prelude.join('\n')}\nexec "$@" ${LIFELINE_FD}<&-`, GUARD_SHELL_NAME, ...launcher];
}

/** Starts a launcher; `binds`: the descriptors its bubblewrap binds from, the caller's to close once it returns. */
function startLauncher(command: WarmCommand, cgroup: RunCgroup | undefined, binds: readonly number[]): WaitingLauncher {
  const script = newScriptFile(command.reader);
  const argv = launcherArgv(command, cgroup?.procs);
  let seccomp: number | undefined;
  let child;
  try {
    seccomp = command.seccomp === undefined ? undefined : openSeccompProgram(command.seccomp.unixSockets);
    const head: Array<'pipe' | 'ignore' | number> = ['pipe', 'pipe', 'pipe', command.statusFd === undefined ? 'ignore' : 'pipe', 'pipe', script.read, 'pipe'];
    const stdio = stdioWith(head, [...(seccomp === undefined ? [] : [{ at: SECCOMP_FD, fd: seccomp }]), ...passedBinds(binds)]);
    if (stdio[CONTROL_FD] !== 'pipe' || stdio[SCRIPT_FD] !== script.read || stdio[LIFELINE_FD] !== 'pipe') throw new Error('the control, script and lifeline descriptors are out of place');
    // an empty environment: the script exports the run's own, and nothing of the gateway's is there to leak
    child = spawn(argv[0]!, argv.slice(1), { cwd: command.workspace, env: {}, detached: true, stdio, windowsHide: true });
  } catch (error) {
    closeSync(script.write);
    throw error;
  } finally {
    // the launcher has its own copies now
    closeSync(script.read);
    if (seccomp !== undefined) closeSync(seccomp);
  }
  // a launcher that fails while it waits is dropped when taken; its run's own listeners come with the run
  child.on('error', () => undefined);
  for (const stream of child.stdio) stream?.on('error', () => undefined);
  return { child, script: { fd: script.write }, ...(cgroup ? { cgroup } : {}) };
}

/**
 * Starts a run from a launcher: a waiting one for the same command line where there is one, else one started now;
 * its cgroup gets the run's maximum of processes, then it gets its script. Throws nothing: a cgroup that cannot be
 * made or limited is a failure to report.
 */
export function startWarm(
  pool: LauncherPool,
  command: WarmCommand,
  cgroups: PidsCgroups | undefined,
  processes: number,
): { ok: true; launcher: WaitingLauncher; argv: string[]; replenish: () => void } | { ok: false; message: string } {
  const sources = command.binds?.sources ?? [];
  const seccomp = command.seccomp === undefined ? '' : command.seccomp.unixSockets ? 'unix' : 'strict';
  const key = `${command.run.init === true ? 'init' : 'exec'}\0${command.workspace}\0${command.statusFd ?? ''}\0${seccomp}\0${command.launcher.join('\0')}\0\0${sources.join('\0')}`;
  let launcher: WaitingLauncher;
  const start = (): WaitingLauncher => startLauncher(command, cgroups?.create(processes), command.binds?.held.fds ?? []);
  // launchers for later runs make their cgroups off the event loop, and open their binds' sources when they start
  const prestart = async (): Promise<WaitingLauncher> => {
    const cgroup = await cgroups?.createInBackground(processes);
    let held: HeldDescriptors;
    try {
      held = openBindSources(sources);
    } catch (error) {
      void cgroup?.release();
      throw error;
    }
    try {
      return startLauncher(command, cgroup, held.fds);
    } finally {
      held.close();
    }
  };
  try {
    launcher = pool.take(key, start);
    launcher.cgroup?.limit(processes);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  } finally {
    // the launcher taken has its own copies (or opened its own when it started)
    command.binds?.held.close();
  }
  try {
    writeSync(launcher.script.fd!, warmScript(command.run), 0);
    closeScript(launcher);
  } catch (error) {
    discard(launcher);
    return { ok: false, message: `the run's script cannot be written: ${(error as Error).message}` };
  }
  pool.go(launcher);
  return { ok: true, launcher, argv: launcher.child.spawnargs, replenish: () => pool.replenish(key, prestart) };
}
