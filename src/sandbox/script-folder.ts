import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// the folder the gateway's private files for its launchers are made in (run scripts, seccomp programs), apart from
// the launchers themselves: seccomp-descriptor.ts and warm-launch.ts both need it, and neither the other

let folder: string | undefined;

const FOLDER_PREFIX = 'hldp-launch-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the scripts' folders that processes now dead left in the temporary folder (a gateway killed with SIGKILL
 * never runs its exit handler): each is named after the pid that made it. A folder of the old form (no pid) is
 * left alone: whose it is cannot be told.
 */
export function sweepScriptFolders(temporary: string = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(temporary);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^hldp-launch-(\d+)-[^/]+$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue;
    try {
      // another user's (its mode is 0700) is theirs to sweep
      if (statSync(join(temporary, name)).uid !== process.getuid?.()) continue;
      rmSync(join(temporary, name), { recursive: true, force: true });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/**
 * The folder in which this process's run scripts are made (mode 0700 in the temporary folder, named after this
 * process; removed at exit, or by the next sandbox's sweep after a SIGKILL). A script has a name there only from
 * its creation to the launcher's start, empty. Every sandbox hides the folder all the same.
 */
export function scriptFolder(): string {
  if (folder === undefined) {
    sweepScriptFolders();
    const made = mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
    folder = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}
