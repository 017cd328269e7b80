import type { ChildProcess } from 'node:child_process';
import { closeSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { CONTROL_FD } from './warm-script.js';
import type { RunCgroup } from './pids-cgroup.js';

/** A launcher started ahead of its run: its sandbox (or namespace) is set up and it waits for its script. */
export interface WaitingLauncher {
  child: ChildProcess;
  /** the pids cgroup it already joined, when processes are counted by one */
  cgroup?: RunCgroup;
  /** the gateway's descriptor of its script, a file with no name left on the host, written when it is taken (undefined once closed) */
  script: { fd: number | undefined };
}

/** Closes the gateway's descriptor of a launcher's script: once its run is over, or it was stopped unused. */
export function closeScript(launcher: WaitingLauncher): void {
  const { fd } = launcher.script;
  launcher.script.fd = undefined;
  if (fd !== undefined) closeSync(fd);
}

/** How many launchers wait for each command line, by default. */
export const WAITING_PER_KEY = 2;
/** How many different command lines keep launchers waiting (the most recently used). */
const KEYS_KEPT = 4;
/** A launcher not used in this time is stopped. */
const IDLE_MS = 30_000;

interface Waiting extends WaitingLauncher {
  timer: NodeJS.Timeout;
}

function streams(child: ChildProcess): Array<Readable | Writable> {
  return child.stdio.filter((stream): stream is Readable | Writable => stream !== null && stream !== undefined);
}

function setHeld(launcher: WaitingLauncher, held: boolean): void {
  // a waiting launcher must not keep a CLI's process alive; the one in use must
  if (held) launcher.child.ref();
  else launcher.child.unref();
  for (const stream of streams(launcher.child)) {
    const socket = stream as { ref?: () => void; unref?: () => void };
    if (held) socket.ref?.();
    else socket.unref?.();
  }
}

// SIGKILL is signal 9: bit 8 of /proc's pending-signal masks
const SIGKILL_BIT = 1n << 8n;

// Node hears of a launcher's death only when it reaps it, a turn or more later: until then /proc shows a zombie. And a
// launcher sent SIGKILL (by another process) dies only when it next runs, on a loaded host a while later: until then it
// shows as sleeping, with the signal pending, and a run handed to it ended "killed by SIGKILL" without having started
function isWaiting(launcher: WaitingLauncher): boolean {
  const { child } = launcher;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null || child.killed) return false;
  let status: string;
  try {
    status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  } catch {
    return false;
  }
  const state = /^State:\s+(\S)/m.exec(status)?.[1];
  if (state === undefined || state === 'Z' || state === 'X') return false;
  // the thread's own pending signals and the process's
  const pending = [/^SigPnd:\s+([0-9a-f]+)$/m, /^ShdPnd:\s+([0-9a-f]+)$/m].map((field) => BigInt(`0x${field.exec(status)?.[1] ?? '0'}`));
  return pending.every((mask) => (mask & SIGKILL_BIT) === 0n);
}

/** Stops a launcher that will not be used, with everything it set up, and frees its cgroup. */
export function discard(launcher: WaitingLauncher): void {
  const { child } = launcher;
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const stream of streams(child)) stream.destroy();
  closeScript(launcher);
  void launcher.cgroup?.release();
}

/**
 * Launchers started ahead of their runs, per command line (a key): a run takes a waiting one, whose start-up (the
 * move into its pids cgroup, bubblewrap's namespaces and mounts) is already done, and sends it its script. A key
 * used a second time gets launchers waiting for its next runs; unused ones are stopped after a while.
 */
export class LauncherPool {
  readonly #waiting = new Map<string, Waiting[]>();
  readonly #seen = new Set<string>();
  readonly #refilling = new Map<string, Promise<void>>();
  #closed = false;

  /** `perKey`: how many launchers wait for each command line; 0: none, every run starts its own */
  constructor(private readonly perKey: number = WAITING_PER_KEY) {}

  /** A launcher for `key`, waiting or started now. */
  take(key: string, start: () => WaitingLauncher): WaitingLauncher {
    const launcher = this.#waitingOne(key) ?? start();
    setHeld(launcher, true);
    return launcher;
  }

  /**
   * After a run of `key` ended: from the key's second run on, launchers are started to wait for its next runs (after
   * the run, so that their start-up never competes with it). A key run once (a CLI's one call) gets none.
   */
  replenish(key: string, start: () => Promise<WaitingLauncher>): void {
    if (this.#closed || this.perKey === 0) return;
    if (this.#seen.has(key)) this.#refill(key, start);
    else this.#seen.add(key);
  }

  /** Tells a taken launcher that its script is written: it runs it. */
  go(launcher: WaitingLauncher): void {
    (launcher.child.stdio[CONTROL_FD] as Writable).end('go\n');
  }

  #waitingOne(key: string): WaitingLauncher | undefined {
    const list = this.#waiting.get(key);
    while (list && list.length > 0) {
      const candidate = list.shift()!;
      clearTimeout(candidate.timer);
      if (isWaiting(candidate)) return candidate;
      discard(candidate);
    }
    return undefined;
  }

  #refill(key: string, start: () => Promise<WaitingLauncher>): void {
    // the most recently used keys last; launchers of the others are stopped
    const list = this.#waiting.get(key) ?? [];
    this.#waiting.delete(key);
    this.#waiting.set(key, list);
    for (const [old, waiting] of this.#waiting) {
      if (this.#waiting.size <= KEYS_KEPT) break;
      for (const launcher of waiting) {
        clearTimeout(launcher.timer);
        discard(launcher);
      }
      this.#waiting.delete(old);
    }
    if (this.#refilling.has(key)) return;
    // one at a time, each in a turn of its own: a spawn holds the event loop for a moment
    const next = async (): Promise<void> => {
      while (!this.#closed && this.#waiting.get(key) === list && list.length < this.perKey) {
        await new Promise((resolve) => setImmediate(resolve));
        let launcher: WaitingLauncher;
        try {
          launcher = await start();
        } catch {
          return;
        }
        if (this.#closed || this.#waiting.get(key) !== list) {
          discard(launcher);
          return;
        }
        setHeld(launcher, false);
        const waiting: Waiting = { ...launcher, timer: setTimeout(() => this.#expire(key, waiting), IDLE_MS).unref() };
        list.push(waiting);
      }
    };
    this.#refilling.set(key, next().finally(() => this.#refilling.delete(key)));
  }

  #expire(key: string, launcher: Waiting): void {
    const list = this.#waiting.get(key);
    const index = list?.indexOf(launcher) ?? -1;
    if (index >= 0) list!.splice(index, 1);
    discard(launcher);
  }

  /**
   * Stops every waiting launcher; runs already taken go on. Resolves once the launchers that were starting are
   * stopped too (each is stopped as soon as its start returns), so that a gateway that exits after it leaves none.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const list of this.#waiting.values()) {
      for (const launcher of list) {
        clearTimeout(launcher.timer);
        discard(launcher);
      }
    }
    this.#waiting.clear();
    await Promise.all(this.#refilling.values());
  }
}
