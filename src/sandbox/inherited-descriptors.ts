import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

/**
 * Review V, V3: every descriptor the gateway holds open across exec reaches every tool it starts. Node's spawn, the
 * launcher's shell, bubblewrap and setpriv close nothing they were not asked to: a folder's descriptor its parent
 * left open walked the host's whole tree from the tool (`/proc/self/fd/N/..`, past every bind: runc's CVE-2024-21626
 * shape), a file's was written by a tool run as nobody, and a unix socket's goes round the seccomp program, which
 * refuses making one, not using one already open.
 *
 * Node opens all of its own close-on-exec (files, sockets, pipes, the IPC channel of a `fork`, SQLite's), so what is
 * not is what the gateway was started with: a supervisor's or an IDE's leftover, `make -j`'s jobserver pipes, a CI
 * runner's. The gateway has no use for them (it never knows their numbers), and no way in Node to mark them
 * close-on-exec, nor does a launcher (dash, the usual /bin/sh, cannot name a descriptor above 9): they are closed
 * here, in the gateway, before a tool is started. The descriptors a launcher is given on purpose (its pipes, the
 * seccomp program's, the binds') are the gateway's own, close-on-exec, and spawn passes them at their numbers.
 */

// linux/fcntl.h (octal, as /proc/PID/fdinfo shows the flags)
const O_CLOEXEC = 0o2000000;

// fdinfo's first lines (pos, flags) fit: one read, into one buffer, at every launch
const info = Buffer.alloc(256);

/** Whether this process's descriptor `fd` stays open across exec; undefined when it is gone (closed meanwhile). */
function openAcrossExec(fd: number): boolean | undefined {
  let length: number;
  try {
    const file = openSync(`/proc/self/fdinfo/${fd}`, 'r');
    try {
      length = readSync(file, info, 0, info.length, 0);
    } finally {
      closeSync(file);
    }
  } catch {
    return undefined;
  }
  const flags = /^flags:\s*([0-7]+)$/m.exec(info.toString('latin1', 0, length))?.[1];
  // a kernel that shows no flags cannot be judged: taken as open across exec, and closed
  return flags === undefined || (parseInt(flags, 8) & O_CLOEXEC) === 0;
}

/**
 * Closes every descriptor above 2 of this process that is open across exec, and says how many it closed. Throws
 * when /proc/self/fd cannot be listed: then what a tool would get cannot be known.
 */
export function closeInheritedDescriptors(): number {
  let closed = 0;
  for (const name of readdirSync('/proc/self/fd')) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2 || openAcrossExec(fd) !== true) continue;
    try {
      closeSync(fd);
      closed += 1;
    } catch {
      // gone meanwhile
    }
  }
  return closed;
}
