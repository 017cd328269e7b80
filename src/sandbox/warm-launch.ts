import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discard, type LauncherPool, type WaitingLauncher } from './launcher-pool.js';
import type { PidsCgroups, RunCgroup } from './pids-cgroup.js';
import { cgroupJoin } from './resource-limits.js';
import { CONTROL_FD, SCRIPT_INSIDE, SCRIPT_SHELL_NAME, waitForScript, warmScript, type WarmRun } from './warm-script.js';

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
  run: Omit<WarmRun, 'argv'> & { argv: readonly string[] };
}

let folder: string | undefined;
let scriptCounter = 0;

/**
 * The folder of this process's run scripts (mode 0700 in the temporary folder; removed at exit). Every sandbox
 * hides it: where the temporary folder is inside a workspace, a tool would otherwise read other runs' scripts.
 */
export function scriptFolder(): string {
  if (folder === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'hldp-launch-'));
    folder = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}

/** A new, empty script file in the scripts folder, readable by its owner only. */
function newScriptFile(): string {
  scriptCounter += 1;
  const path = join(scriptFolder(), `run-${scriptCounter}.sh`);
  writeFileSync(path, '', { mode: 0o600 });
  return path;
}

/** Removes a launcher's script file once its run is over, or it was stopped unused. */
export function removeScript(launcher: WaitingLauncher): void {
  try {
    unlinkSync(launcher.script);
  } catch {
    // gone already
  }
}

/**
 * The command line of one launcher: join the cgroup (when there is one), then the launcher, then a shell waiting
 * for its script. In bubblewrap the script file is bound read-only at `SCRIPT_INSIDE`; in a namespace's launcher the
 * shell is the init, and joins the cgroup itself before anything forks.
 */
function launcherArgv(command: WarmCommand, procs: string | undefined, script: string): string[] {
  const init = command.run.init === true;
  if (init) {
    const waiting = procs ? `${cgroupJoin(procs)}\n${waitForScript(script)}` : waitForScript(script);
    return [...command.launcher, SHELL, '-c', waiting, SCRIPT_SHELL_NAME];
  }
  // bubblewrap's arguments end with `--`: the script's bind goes before it
  const bubblewrap = [...command.launcher.slice(0, -1), '--ro-bind', script, SCRIPT_INSIDE, '--', SHELL, '-c', waitForScript(SCRIPT_INSIDE), SCRIPT_SHELL_NAME];
  return procs ? [SHELL, '-c', `${cgroupJoin(procs)}\nexec "$@"`, 'hldp-limits', ...bubblewrap] : bubblewrap;
}

function startLauncher(command: WarmCommand, cgroup: RunCgroup | undefined): WaitingLauncher {
  const script = newScriptFile();
  const argv = launcherArgv(command, cgroup?.procs, script);
  const stdio = ['pipe', 'pipe', 'pipe', command.statusFd === undefined ? 'ignore' : 'pipe', 'pipe'] as const;
  // an empty environment: the script exports the run's own, and nothing of the gateway's is there to leak
  const child = spawn(argv[0]!, argv.slice(1), { cwd: command.workspace, env: {}, detached: true, stdio: [...stdio], windowsHide: true });
  // a launcher that fails while it waits is dropped when taken; its run's own listeners come with the run
  child.on('error', () => undefined);
  for (const stream of child.stdio) stream?.on('error', () => undefined);
  if (CONTROL_FD !== child.stdio.length - 1) throw new Error('the control descriptor must be the last one');
  return { child, script, ...(cgroup ? { cgroup } : {}) };
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
  const key = `${command.run.init === true ? 'init' : 'exec'}\0${command.workspace}\0${command.statusFd ?? ''}\0${command.launcher.join('\0')}`;
  let launcher: WaitingLauncher;
  const start = (): WaitingLauncher => startLauncher(command, cgroups?.create(processes));
  // launchers for later runs make their cgroups off the event loop
  const prestart = async (): Promise<WaitingLauncher> => startLauncher(command, await cgroups?.createInBackground(processes));
  try {
    launcher = pool.take(key, start);
    launcher.cgroup?.limit(processes);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  try {
    writeFileSync(launcher.script, warmScript(command.run));
  } catch (error) {
    discard(launcher);
    return { ok: false, message: `the run's script cannot be written: ${(error as Error).message}` };
  }
  pool.go(launcher);
  return { ok: true, launcher, argv: launcher.child.spawnargs, replenish: () => pool.replenish(key, prestart) };
}
