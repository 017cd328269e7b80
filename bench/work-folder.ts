import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeFolder } from '../test/helpers/git.js';

// A benchmark's work folder (a generated repository is 85-88 MB at 10,000 tools) was removed only in its `finally`,
// which a signal never reaches: Ctrl-C left /tmp/hldp-bench-* behind (review userZ3, Z3-6). Every folder a bench
// script makes goes through here, and SIGINT or SIGTERM removes them all before the process ends by that signal.

const folders = new Set<string>();

// A child of the benchmark that got the same Ctrl-C may still write in its folder for a moment (a `git init` copying its
// hooks). Node 20's rm retries only the last rmdir of a folder, never clearing it again: one file written after its pass
// over the folder failed every retry (ENOTEMPTY on .git/hooks, 46 s of them, in the lead's CI run). So each try here is
// a whole removal; 30 tries wait up to ~46 s between them.
const TRIES = 30;
const RETRY_DELAY_MS = 100;

/** Removes `folder` whole, again and again while something still writes in it. */
function removeSync(folder: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      return rmSync(folder, { recursive: true, force: true });
    } catch (error) {
      if (attempt >= TRIES) throw error;
      // a signal's handler sleeps without the event loop: the benchmark must not go on starting work meanwhile
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, attempt * RETRY_DELAY_MS);
    }
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function onSignal(signal: NodeJS.Signals): void {
  for (const folder of folders) {
    try {
      removeSync(folder);
      process.stderr.write(`${signal}: removed the work folder ${folder}\n`);
    } catch (error) {
      process.stderr.write(`${signal}: could not remove the work folder ${folder}: ${(error as Error).message}\n`);
    }
  }
  folders.clear();
  // end by the signal itself, as without this handler (a shell sees 130 / 143 and stops an `a && b`)
  for (const name of SIGNALS) process.removeListener(name, onSignal);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + constants.signals[signal]), 1000);
}

/** Removes `folder` (recursively) if the process gets SIGINT or SIGTERM before `forget`; returns `folder`. */
export function removeOnSignal(folder: string): string {
  for (const name of SIGNALS) if (!process.listeners(name).includes(onSignal)) process.on(name, onSignal);
  folders.add(folder);
  return folder;
}

/** The folder is gone (or kept on purpose): a signal no longer removes it. */
export function forget(folder: string): void {
  folders.delete(folder);
}

/**
 * A new folder `<tmpdir>/<prefix>XXXXXX` that a signal removes. Made synchronously once the handlers are in place, so
 * no signal can come between the folder's making and its registration (a handler runs on the event loop).
 */
export function benchFolder(prefix: string): string {
  for (const name of SIGNALS) if (!process.listeners(name).includes(onSignal)) process.on(name, onSignal);
  return removeOnSignal(mkdtempSync(join(tmpdir(), prefix)));
}

/** `benchFolder` as test/helpers' `makeTempDir` gives it: `cleanup` removes it (and a signal no longer need). */
export async function benchTempDir(prefix: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = benchFolder(prefix);
  // retries: a sandbox launcher discarded while it set up may still make a mount point in it for a moment
  return { path, cleanup: () => removeFolder(path).finally(() => forget(path)) };
}
