import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

// A benchmark's work folder (a generated repository is 85-88 MB at 10,000 tools) was removed only in its `finally`,
// which a signal never reaches: Ctrl-C left /tmp/hldp-bench-* behind (review userZ3, Z3-6). Every folder a bench
// script makes goes through here, and SIGINT or SIGTERM removes them all before the process ends by that signal.

const folders = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function onSignal(signal: NodeJS.Signals): void {
  for (const folder of folders) {
    try {
      // retries: a child of the benchmark that got the same Ctrl-C may still be writing in it for a while (a git writing
      // .git under load kept at it past 10 tries, 5.5 s: ENOTEMPTY in the lead's CI run); 30 tries wait up to ~46 s
      rmSync(folder, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 });
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
  return { path, cleanup: () => rm(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).finally(() => forget(path)) };
}
