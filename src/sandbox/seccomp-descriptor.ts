import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SECCOMP_ARCHES, seccompProgram } from './seccomp-filter.js';
import { scriptFolder } from './script-folder.js';

/**
 * The descriptor bubblewrap reads its seccomp program from (`--seccomp`), in every sandboxed launcher: after the
 * status (3), control (4), script (5) and lifeline (6) ones a waiting launcher has.
 */
export const SECCOMP_FD = 7;

/** bubblewrap's arguments that load the program from `SECCOMP_FD`. */
export const SECCOMP_ARGUMENTS: readonly string[] = ['--seccomp', String(SECCOMP_FD)];

/** Why this host's sandbox cannot filter system calls, or undefined: an architecture the filter does not know. */
export function seccompRefusal(arch: string = process.arch): string | undefined {
  if (SECCOMP_ARCHES[arch] !== undefined) return undefined;
  return `the sandbox's system-call filter (which keeps tools from the host's unix sockets) knows x64 and arm64, not ${arch}, so no sandboxed tool runs here`;
}

// each program once, in a file with no name left, held open for the gateway's life: what bubblewrap reads is written
// here and nowhere a tool or another user could change it
const held = new Map<boolean, number>();

function heldProgram(unixSockets: boolean): number {
  let fd = held.get(unixSockets);
  if (fd !== undefined) return fd;
  const arch = SECCOMP_ARCHES[process.arch];
  if (arch === undefined) throw new Error(seccompRefusal());
  const path = join(scriptFolder(), `seccomp-${unixSockets ? 'unix' : 'strict'}-${process.hrtime.bigint()}.bpf`);
  const write = openSync(path, 'wx', 0o600);
  try {
    writeSync(write, seccompProgram(arch, unixSockets));
    fd = openSync(path, 'r');
  } finally {
    closeSync(write);
    unlinkSync(path);
  }
  held.set(unixSockets, fd);
  return fd;
}

/**
 * A new descriptor of the run's seccomp program, at its start, for one launcher's `SECCOMP_FD`; the caller closes it
 * once the launcher is spawned. New each time: bubblewrap reads to the end of the file, and a shared offset would
 * leave the next launcher nothing to read.
 */
export function openSeccompProgram(unixSockets: boolean): number {
  // the held file reopened through /proc: a description of its own, at offset 0
  return openSync(`/proc/self/fd/${heldProgram(unixSockets)}`, 'r');
}
