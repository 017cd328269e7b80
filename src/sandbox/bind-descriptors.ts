import { closeSync } from 'node:fs';
import type { Bubblewrap } from './bubblewrap.js';
import { openPathNoFollow } from './folder-descriptor.js';
import type { PassedDescriptor } from './passed-descriptors.js';
import { isInside } from './workspace-rules.js';

// bubblewrap resolves a bind's source by path when it mounts, following symlinks: a tool that can write a folder the
// gateway binds (the workspace, a declared path, a pinned git folder, a PATH folder in the workspace) could swap it,
// or a folder on its way, for a link between the gateway's judgement and the mount (review T, T1 and T2). Each such
// source is opened here instead, a component at a time with O_NOFOLLOW, and bound by its descriptor (bubblewrap's
// `--bind-fd` / `--ro-bind-fd`, 0.8 and later): a swap after the open finds the descriptor holding the folder judged.
// bubblewrap 0.8 still mounts the path the descriptor has now (/proc/self/fd/N resolved), then compares the mount's
// device and inode with the descriptor's and stops ("Race condition binding dirfd") where they differ: a folder moved
// aside is bound from where it went, and one swapped back and forth while bubblewrap mounts fails the run.

/** The first descriptor number a launcher gets its binds' sources at: after the status, control, script, lifeline and seccomp (7) ones. */
export const BIND_FD_BASE = 8;

/** The gateway's own copies of the descriptors a launcher binds from: closed once the launcher has its own. */
export class HeldDescriptors {
  #fds: number[];

  constructor(fds: number[]) {
    this.#fds = fds;
  }

  /** the descriptors, in the order of their numbers in the launcher from `BIND_FD_BASE` on */
  get fds(): readonly number[] {
    return this.#fds;
  }

  /** Closes them, once: a descriptor number is reused once closed, so a second close could close another file. */
  close(): void {
    const fds = this.#fds;
    this.#fds = [];
    for (const fd of fds) closeSync(fd);
  }
}

/** bubblewrap's arguments with the chosen binds made by descriptor, and the sources opened for them. */
export type BoundByDescriptor = { ok: true; args: string[]; sources: string[]; held: HeldDescriptors } | { ok: false; refusal: string };

const BY_PATH = new Map([
  ['--bind', '--bind-fd'],
  ['--bind-try', '--bind-fd'],
  ['--ro-bind', '--ro-bind-fd'],
  ['--ro-bind-try', '--ro-bind-fd'],
]);

/**
 * The sources bound by path, as ever: the host's own that only its root changes (`system`: the system folders, the
 * resolver's), /dev/null, /proc's — unless one lies in a folder bound writable (a PATH folder in the workspace).
 */
export function keptByPath(system: readonly string[], args: readonly string[]): (source: string) => boolean {
  const writable = args.flatMap((option, index) => (option === '--bind' || option === '--bind-try' ? [args[index + 1]!] : []));
  return (source) => source === '/dev/null' || source.startsWith('/proc/') || (system.includes(source) && !writable.some((folder) => isInside(source, folder)));
}

/**
 * `args` (bubblewrap's, up to `--`) with every bind whose source `byPath` does not keep made by descriptor: the source
 * opened now (`openPathNoFollow`), numbered from `BIND_FD_BASE` in order. A `-try` bind whose source is not there is
 * left out, as bubblewrap would; one the gateway cannot open otherwise stays by path (bubblewrap then says why it
 * cannot bind it, and the mount check still holds it). A source reached through a symbolic link was swapped since the
 * gateway resolved it: refused.
 */
export function bindByDescriptor(args: readonly string[], byPath: (source: string) => boolean): BoundByDescriptor {
  const out: string[] = [];
  const sources: string[] = [];
  const fds: number[] = [];
  let index = 0;
  // no value of the gateway's starts with `--` (paths are absolute, the rest numbers and names): an option is one
  for (; index < args.length && args[index] !== '--'; index += 1) {
    const option = args[index]!;
    const fdOption = BY_PATH.get(option);
    const [source, destination] = [args[index + 1]!, args[index + 2]!];
    if (fdOption === undefined || byPath(source)) {
      out.push(option);
      continue;
    }
    index += 2;
    const opened = openPathNoFollow(source);
    if (opened.ok) {
      out.push(fdOption, String(BIND_FD_BASE + fds.length), destination);
      fds.push(opened.fd);
      sources.push(source);
    } else if (opened.linked) {
      for (const fd of fds) closeSync(fd);
      return { ok: false, refusal: `${source} is reached through a symbolic link now, made since the gateway resolved it (by a tool that can write a folder on its way?): the gateway binds no path a tool can point elsewhere` };
    } else if (!(opened.absent && option.endsWith('-try'))) out.push(option, source, destination);
  }
  out.push(...args.slice(index));
  return { ok: true, args: out, sources, held: new HeldDescriptors(fds) };
}

/**
 * A run's bubblewrap arguments with its binds by descriptor, where this bubblewrap makes them (0.8 and later; an older
 * one binds every source by path, and the mount check alone holds them), the resolver's folder kept by path.
 */
export function boundArguments(bubblewrap: Extract<Bubblewrap, { ok: true }>, args: string[], resolver: string | undefined): BoundByDescriptor {
  if (!bubblewrap.bindFd) return { ok: true, args, sources: [], held: new HeldDescriptors([]) };
  return bindByDescriptor(args, keptByPath([...bubblewrap.system.map((mount) => mount.path), ...(resolver ? [resolver] : [])], args));
}

/** The sources of a launcher's binds opened again, for a launcher started ahead of its run; throws where one cannot be. */
export function openBindSources(sources: readonly string[]): HeldDescriptors {
  const fds: number[] = [];
  for (const source of sources) {
    const opened = openPathNoFollow(source);
    if (!opened.ok) {
      for (const fd of fds) closeSync(fd);
      throw new Error(`${source} cannot be opened to be bound by descriptor${opened.linked ? ': it is reached through a symbolic link now' : ''}`);
    }
    fds.push(opened.fd);
  }
  return new HeldDescriptors(fds);
}

/** The descriptors a launcher's bubblewrap binds from, each at its number: `BIND_FD_BASE` on, in order. */
export function passedBinds(fds: readonly number[]): PassedDescriptor[] {
  return fds.map((fd, index) => ({ at: BIND_FD_BASE + index, fd }));
}
