import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** How {@link RunAsFiles.open} opens the last component (as `openInsideRoot` takes them). */
export interface RunAsOpenOptions {
  flags: number;
  mode?: number;
  /** make the folders on the way that do not exist (as the user) */
  createDirs?: boolean;
}

type Answer = { id: number; fd: number; dev: string; ino: string } | { id: number; code: string; message: string };

// Linux's O_PATH (0o10000000 on every architecture Node runs on but alpha, parisc and sparc): Node does not export it.
// A folder opened with it needs search permission to look a name up in, and no read permission of its own.
const O_PATH = 0o10000000;

/**
 * The helper, run by node as the user (CommonJS, from the command line: a package installed in root's home is not
 * the user's to read). It walks from its descriptor 3, the root, one name at a time with O_NOFOLLOW, so the kernel
 * checks the user's search permission on every folder and its read or write permission on the file, and a symlink
 * anywhere on the way is refused (ELOOP); the file stays open until the gateway, which opened it again through
 * /proc, says it may close it. One JSON line per request and per answer.
 */
const helperSource = (ids: { uid: number; gid: number } | undefined): string => String.raw`'use strict';
const fs = require('fs');
// node itself, by the descriptor it was started from: not the user's to hold (review Q, Q2)
try { fs.closeSync(4); } catch {}
const RUN_AS = ${JSON.stringify(ids ?? null)};
if (RUN_AS !== null) {
  // the drop made here, in the process, not by setpriv before node starts: a process whose ids changed is not dumpable
  // (fs.suid_dumpable 0), so no other process of the user may ptrace it, nor read its /proc/<pid>/fd and environ
  process.setgroups([]);
  process.setgid(RUN_AS.gid);
  process.setuid(RUN_AS.uid);
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const ids = (name) => (new RegExp('^' + name + ':[\\t ]*(.*)$', 'm').exec(status) || [])[1];
  const all = (line, id) => line !== undefined && line.trim().split(/\s+/).every((value) => value === String(id));
  if (!all(ids('Uid'), RUN_AS.uid) || !all(ids('Gid'), RUN_AS.gid) || (ids('Groups') || '').trim() !== '' || !/^0+$/.test(ids('CapPrm') || '') || !/^0+$/.test(ids('CapEff') || '')) {
    process.stderr.write('the helper did not become uid ' + RUN_AS.uid + ', gid ' + RUN_AS.gid + ' without capabilities\n');
    process.exit(70);
  }
}
const { O_DIRECTORY, O_NOFOLLOW } = fs.constants;
const O_PATH = ${O_PATH};
const at = (fd, name) => '/proc/self/fd/' + fd + (name === undefined ? '' : '/' + name);
function child(folder, name, flags, mode) {
  try {
    return fs.openSync(at(folder, name), flags | O_NOFOLLOW, mode);
  } catch (error) {
    let link = false;
    try { link = error.code === 'ENOTDIR' && fs.lstatSync(at(folder, name)).isSymbolicLink(); } catch {}
    if (link) throw Object.assign(new Error("ELOOP: '" + name + "' is a symlink"), { code: 'ELOOP' });
    throw error;
  }
}
function opened(request) {
  const held = [];
  try {
    let folder = fs.openSync(at(3), O_PATH | O_DIRECTORY);
    held.push(folder);
    const parts = request.parts;
    for (const part of parts.slice(0, -1)) {
      if (request.createDirs) {
        try { fs.mkdirSync(at(folder, part)); } catch (error) { if (error.code !== 'EEXIST') throw error; }
      }
      folder = child(folder, part, O_PATH | O_DIRECTORY);
      held.push(folder);
    }
    const fd = parts.length === 0 ? fs.openSync(at(3), request.flags) : child(folder, parts[parts.length - 1], request.flags, request.mode);
    try {
      // a folder is listed only where the user may also look its names up, as ls -l needs
      if ((request.flags & O_DIRECTORY) !== 0) fs.closeSync(fs.openSync(at(fd, '.'), O_PATH));
      const info = fs.fstatSync(fd, { bigint: true });
      return { fd, dev: String(info.dev), ino: String(info.ino) };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  } finally {
    for (const fd of held) fs.closeSync(fd);
  }
}
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.close !== undefined) {
    try { fs.closeSync(request.close); } catch {}
    return;
  }
  let answer;
  try {
    answer = { id: request.id, ...opened(request) };
  } catch (error) {
    answer = { id: request.id, code: typeof error.code === 'string' ? error.code : 'EIO', message: String(error.message).replace(/, [a-z]+ '[^']*'$/, '') };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}).on('close', () => process.exit(0));
`;

/**
 * How the helper is started from setpriv's drop (`dropArguments`): the same program and limits, but node started as
 * root with only CAP_SETUID and CAP_SETGID, the helper dropping to the user's ids itself before it reads anything (see
 * `helperSource`). A drop without `--reuid=`/`--regid=` (not setpriv's) is used as it is.
 */
function helperLaunch(drop: readonly string[]): { args: string[]; ids: { uid: number; gid: number } | undefined } {
  const id = (prefix: string): number | undefined => {
    const found = drop.find((argument) => argument.startsWith(prefix));
    const value = found === undefined ? Number.NaN : Number(found.slice(prefix.length));
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  };
  const uid = id('--reuid=');
  const gid = id('--regid=');
  const given = drop.slice(1, -1);
  if (uid === undefined || gid === undefined || !given.includes('--bounding-set=-all')) return { args: given, ids: undefined };
  const args = given.filter((argument) => !argument.startsWith('--reuid=') && !argument.startsWith('--regid=')).map((argument) => (argument === '--bounding-set=-all' ? '--bounding-set=-all,+setuid,+setgid' : argument));
  return { args, ids: { uid, gid } };
}

const decimal = (value: unknown): boolean => typeof value === 'string' && /^(0|[1-9][0-9]{0,19})$/.test(value);

function unlike(who: string, requested: string, what: string): Error {
  return Object.assign(new Error(`EIO: the helper that opens files as ${who} ${what}, and was stopped, open '${requested}'`), { code: 'EIO' });
}

// the flags the gateway opens the helper's file again with: what the open did (create, truncate) is done
const REOPEN_KEPT = constants.O_WRONLY | constants.O_RDWR | constants.O_APPEND | constants.O_NONBLOCK | constants.O_DIRECTORY;

/**
 * Opens files inside one root as a root gateway's `run_as` user (review O, O5): the gatekeeper's file methods ran in
 * the gateway, as root, and `file-read` returned a root-only (0600) file of the workspace that every tool running as
 * nobody was refused. A helper process of that user (started by setpriv with the tools' own drop, at the first file
 * call, and kept) opens each file, so the kernel judges the user's access — file modes, ACLs, search permission on
 * the way, read-only mounts — and makes new files and folders theirs; the gateway opens that same file again through
 * `/proc/<helper>/fd/N` (checked to be the same inode) and reads or writes it as before.
 */
export class RunAsFiles {
  private helper: Helper | undefined;
  private nextId = 1;

  /**
   * @param root the resolved root every path is inside
   * @param drop setpriv's command that becomes the user (`dropArguments`)
   * @param who the user, for messages (`describeRunAs`)
   */
  constructor(
    private readonly root: string,
    private readonly drop: readonly string[],
    private readonly who: string,
  ) {}

  /**
   * Opens `parts` (the names from the root to the file, symlinks already resolved inside it) as the user; throws as
   * `open` does (`code`: EACCES, ENOENT, ELOOP for a symlink on the way), naming `requested` and the user.
   */
  async open(parts: readonly string[], requested: string, options: RunAsOpenOptions): Promise<FileHandle> {
    const { process: helper, waiting } = this.started();
    const answer = await new Promise<Answer>((resolve, reject) => {
      const id = this.nextId++;
      waiting.set(id, { resolve, reject });
      held(helper, true);
      const flags = options.flags & ~constants.O_NOFOLLOW;
      helper.stdin.write(`${JSON.stringify({ id, parts, flags, mode: options.mode ?? 0o644, createDirs: options.createDirs === true })}\n`);
    });
    if ('code' in answer) throw Object.assign(new Error(`${answer.message}, open '${requested}' as ${this.who}, whom this root gateway's tools run as`), { code: answer.code });
    // the helper is the user's process, which another process of theirs may take over (ptrace: review Q, Q2), so its
    // answer is a claim: a descriptor that is not a plain number (`../../../../etc/shadow`) ends it
    if (!Number.isSafeInteger(answer.fd) || answer.fd <= 4 || !decimal(answer.dev) || !decimal(answer.ino)) {
      this.close();
      throw unlike(this.who, requested, 'answered what is not a descriptor it opened');
    }
    let linked: bigint | undefined;
    try {
      const handle = await open(`/proc/${helper.pid}/fd/${answer.fd}`, options.flags & REOPEN_KEPT);
      try {
        // and the file the gateway now holds must be the one it asked for: the path it resolved itself, under the
        // root, and the inode that path names now (a helper answering another descriptor of its own, a file outside
        // the root opened read-only, would otherwise have root write it)
        const expected = parts.length === 0 ? this.root : join(this.root, ...parts);
        const [info, named, held] = await Promise.all([handle.stat({ bigint: true }), lstat(expected, { bigint: true }).catch(() => undefined), readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)]);
        const same = held === expected && named !== undefined && info.dev === named.dev && info.ino === named.ino && String(info.dev) === answer.dev && String(info.ino) === answer.ino;
        // root writes what it reopened with its own rights: a hard link planted at the path (fs.protected_hardlinks=0
        // lets the user link a file it may not write) is one name of another file, refused for a write
        const writes = (options.flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0;
        if (same && writes && info.isFile() && info.nlink !== 1n) linked = info.nlink;
        else if (same) return handle;
      } catch {
        // judged below as not the file
      }
      await handle.close();
      if (linked !== undefined) throw Object.assign(new Error(`EIO: '${requested}' has ${linked} hard links, and a root gateway writes a file only under its one name (another may be a file ${this.who} may not write), open '${requested}'`), { code: 'EIO' });
      throw Object.assign(new Error(`EIO: the file the helper of ${this.who} opened was not '${requested}' when the gateway took it, open '${requested}'`), { code: 'EIO' });
    } finally {
      if (!helper.stdin.destroyed) helper.stdin.write(`${JSON.stringify({ close: answer.fd })}\n`);
    }
  }

  /** Stops the helper; calls waiting on it fail. */
  close(): void {
    const helper = this.helper?.process;
    this.helper = undefined;
    if (helper === undefined) return;
    helper.stdin.end();
    helper.kill('SIGKILL');
  }

  private started(): Helper {
    if (this.helper !== undefined && this.helper.process.exitCode === null && this.helper.process.signalCode === null) return this.helper;
    // node by a descriptor: where it is installed below root's home, the user could not reach it by its path
    const node = openSync(process.execPath, constants.O_RDONLY);
    const root = openSync(this.root, constants.O_RDONLY | constants.O_DIRECTORY);
    let helper: ChildProcessWithoutNullStreams;
    try {
      // an empty environment, as every program that sets a run up gets (review O, O1 and O2); / as the working
      // folder, which the user may enter; killed with the gateway (pdeathsig), and ends when its stdin does
      const { args, ids } = helperLaunch(this.drop);
      helper = spawn(this.drop[0]!, [...args, '--pdeathsig', 'KILL', '--', `/proc/self/fd/4`, '-e', helperSource(ids)], {
        cwd: '/',
        env: {},
        stdio: ['pipe', 'pipe', 'pipe', root, node],
      }) as ChildProcessWithoutNullStreams;
    } finally {
      closeSync(node);
      closeSync(root);
    }
    const waiting: Helper['waiting'] = new Map();
    const started = { process: helper, waiting };
    this.helper = started;
    let stderr = '';
    helper.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < 4096) stderr += text;
    });
    createInterface({ input: helper.stdout }).on('line', (line) => {
      let answer: Answer;
      try {
        answer = JSON.parse(line) as Answer;
      } catch {
        // not an answer it could give: it is not the helper any more
        helper.kill('SIGKILL');
        return;
      }
      const call = waiting.get(answer?.id);
      waiting.delete(answer.id);
      if (waiting.size === 0) held(helper, false);
      call?.resolve(answer);
    });
    const ended = (why: string): void => {
      if (this.helper === started) this.helper = undefined;
      const failure = Object.assign(new Error(`EIO: the helper that opens files as ${this.who} ${why}${stderr ? `: ${stderr.trim().slice(0, 1000)}` : ''}`), { code: 'EIO' });
      for (const call of waiting.values()) call.reject(failure);
      waiting.clear();
    };
    helper.on('error', (error) => ended(`could not start (${error.message})`));
    helper.on('exit', (code, signal) => ended(`ended (${signal ?? `exit ${code}`})`));
    helper.stdin.on('error', () => undefined);
    held(helper, false);
    return started;
  }
}

// an idle helper must not keep a CLI's process alive; one a call waits for must
function held(helper: ChildProcessWithoutNullStreams, waitedFor: boolean): void {
  if (waitedFor) helper.ref();
  else helper.unref();
  for (const stream of [helper.stdin, helper.stdout, helper.stderr]) {
    const socket = stream as unknown as { ref?: () => void; unref?: () => void };
    if (waitedFor) socket.ref?.();
    else socket.unref?.();
  }
}

/** A helper process and the calls waiting for its answers, by id. */
interface Helper {
  process: ChildProcessWithoutNullStreams;
  waiting: Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>;
}
