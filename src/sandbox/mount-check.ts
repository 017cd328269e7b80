import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { posix } from 'node:path';
import { BIND_FD_BASE } from './bind-descriptors.js';
import { shellWord } from './resource-limits.js';

/**
 * The check a sandboxed run's first process makes of its own mounts before any tool code runs (review T, T1 and T2).
 * bubblewrap resolves every bind's source and destination by path, following symlinks, when it mounts; the gateway
 * judged those paths earlier (a PATH folder at the probe, a pinned git folder at the launch's walk), and a tool that can
 * write the workspace can swap a folder on the way for a relative symlink (`..`, `../../../../tmp`) in between: the
 * real home, or the host's /tmp, was then bound in the sandbox. The gateway reads its own /proc/self/mountinfo when it
 * builds the command line, and says, for each bind, which device and which path of that device (mountinfo's `root`) it
 * means to show at the destination; the run's shell compares that with its /proc/self/mountinfo, and with the mount
 * points it may have at all, and stops (exit 125, naming the path) at the first difference. Nothing races it: the
 * mounts are made before it runs, and no one can change them after.
 */

/** One line of /proc/PID/mountinfo, its paths as they are (unescaped). */
export interface MountEntry {
  /** major:minor */
  device: string;
  /** the path, in its file system, of what is mounted */
  root: string;
  mountPoint: string;
}

/** mountinfo writes a space, tab, newline and backslash in a path as `\ooo` (the kernel's mangle()). */
export function escapeMountPath(path: string): string {
  return path.replace(/[ \t\n\\]/g, (char) => `\\${char.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

export function unescapeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The lines of a mountinfo text it can read (at least five fields), in order; others are skipped. */
export function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5 || !/^\d+:\d+$/.test(fields[2]!) || !fields[3]!.startsWith('/') || !fields[4]!.startsWith('/')) continue;
    entries.push({ device: fields[2]!, root: unescapeMountPath(fields[3]!), mountPoint: unescapeMountPath(fields[4]!) });
  }
  return entries;
}

function inside(path: string, folder: string): boolean {
  return folder === '/' || path === folder || path.startsWith(`${folder}/`);
}

/**
 * What a bind of `source` shows, taken as spelt (no symlink followed: the gateway binds only paths it judged real):
 * the device of the innermost mount holding it (the last of those at one mount point, on top) and its path there.
 */
export function sourceOf(source: string, host: readonly MountEntry[]): { device: string; root: string } | undefined {
  let holder: MountEntry | undefined;
  for (const entry of host) if (inside(source, entry.mountPoint) && (holder === undefined || entry.mountPoint.length >= holder.mountPoint.length)) holder = entry;
  if (holder === undefined) return undefined;
  return { device: holder.device, root: posix.join(holder.root, source.slice(holder.mountPoint === '/' ? 0 : holder.mountPoint.length)) };
}

/** What a run's mounts must be: one entry per destination, as its last operation left it. */
export interface MountPlan {
  /**
   * a bind's destination, what must be mounted there on top (`optional`: a `-try` bind, which may be absent;
   * `deviceOnly`: a writable bind by descriptor, whose folder bubblewrap checked by inode and a tool may have moved
   * since, so that its path on the device, `root`, is not compared)
   */
  binds: Array<{ path: string; device: string; root: string; optional: boolean; deviceOnly?: true }>;
  /** a tmpfs's destination: something must be mounted there */
  present: string[];
  /** mount points that may be there, unchecked: the host's mounts inside a bound folder, carried along by the bind */
  allowed: string[];
  /** folders of the sandbox's own making (its /proc, /dev): anything may be mounted inside */
  own: string[];
  /** why the run must not start: a bind's source goes through a symlink in a folder tools can write */
  refusal?: string;
}

/** How a plan reads a bind's source: the real path it names now, or why it may not be bound (`judgedSource`). */
export type SourceResolver = (source: string, writable: readonly string[]) => { real: string } | { refusal: string };

/**
 * A bind's source as the real path it names now, resolved component by component: a symlink on the way is followed
 * (the host's own: /home -> /usr/home, a linked node_modules) unless it lies in a folder tools can write (`writable`,
 * real), where a tool may have put it (review T, T1: `node_modules/.bin -> ../..` showed the home).
 */
export function judgedSource(source: string, writable: readonly string[]): { real: string } | { refusal: string } {
  const rest = source.split('/').filter((name) => name !== '' && name !== '.');
  let real = '/';
  for (let hops = 0; rest.length > 0; ) {
    const name = rest.shift()!;
    if (name === '..') {
      real = posix.dirname(real);
      continue;
    }
    const next = posix.join(real, name);
    let link = false;
    try {
      link = lstatSync(next).isSymbolicLink();
    } catch {
      // not there (a `-try` bind's): the rest as spelt
      return { real: posix.join(next, ...rest) };
    }
    if (!link) {
      real = next;
      continue;
    }
    if (writable.some((folder) => inside(real, folder))) return { refusal: `${source} goes through the symbolic link ${next}, in a folder tools can write: the gateway binds no path a tool can point elsewhere` };
    if ((hops += 1) > 40) return { refusal: `${source}: too many symbolic links` };
    const target = readlinkSync(next);
    rest.unshift(...target.split('/').filter((part) => part !== '' && part !== '.'));
    if (target.startsWith('/')) real = '/';
  }
  return { real };
}

const BINDS = new Set(['--bind', '--ro-bind', '--bind-try', '--ro-bind-try', '--dev-bind', '--dev-bind-try']);
const FD_BINDS = new Set(['--bind-fd', '--ro-bind-fd']);
const TWO = new Set([...BINDS, ...FD_BINDS, '--symlink', '--chmod']);
const ONE = new Set(['--tmpfs', '--proc', '--dev', '--mqueue', '--dir', '--chdir', '--perms', '--size', '--json-status-fd', '--cap-add', '--cap-drop', '--remount-ro', '--uid', '--gid', '--hostname', '--setenv', '--unsetenv', '--file', '--bind-data', '--ro-bind-data', '--seccomp', '--info-fd', '--block-fd', '--userns-block-fd', '--sync-fd', '--lock-file', '--exec-label', '--file-label', '--userns', '--userns2', '--pidns', '--args', '--add-seccomp-fd', '--argv0']);

/** A bind of `args` at `index`: its source (a descriptor's, from `sources`), destination, and how it is checked. */
function bindAt(args: readonly string[], index: number, sources: readonly string[]): { source: string; destination: string; optional: boolean; deviceOnly: boolean } {
  const option = args[index]!;
  const destination = args[index + 2]!;
  if (!FD_BINDS.has(option)) return { source: args[index + 1]!, destination, optional: option.endsWith('-try'), deviceOnly: false };
  const source = sources[Number(args[index + 1]) - BIND_FD_BASE];
  if (source === undefined) throw new Error(`bubblewrap's ${option} ${args[index + 1]} names no source the gateway opened`);
  return { source, destination, optional: false, deviceOnly: option === '--bind-fd' };
}

/**
 * The plan for bubblewrap's arguments `args` (up to `--`), the host's mounts being `host`; `sources`: the paths the
 * descriptors of its `--bind-fd` / `--ro-bind-fd` were opened from, in order from `BIND_FD_BASE`.
 */
export function mountPlan(args: readonly string[], host: readonly MountEntry[], resolve: SourceResolver = (source) => ({ real: source }), sources: readonly string[] = []): MountPlan {
  const last = new Map<string, { kind: 'bind'; source: string; optional: boolean; deviceOnly: boolean } | { kind: 'tmpfs' } | { kind: 'own' }>();
  const allowed = new Set<string>();
  for (let index = 0; index < args.length && args[index] !== '--'; index += 1) {
    const option = args[index]!;
    if (BINDS.has(option) || FD_BINDS.has(option)) {
      const { source, destination, optional, deviceOnly } = bindAt(args, index, sources);
      last.delete(destination);
      last.set(destination, { kind: 'bind', source, optional, deviceOnly });
      for (const entry of host) if (entry.mountPoint !== source && inside(entry.mountPoint, source)) allowed.add(posix.join(destination, entry.mountPoint.slice(source.length)));
    } else if (option === '--tmpfs' || option === '--mqueue') (last.delete(args[index + 1]!), last.set(args[index + 1]!, { kind: 'tmpfs' }));
    else if (option === '--proc' || option === '--dev') (last.delete(args[index + 1]!), last.set(args[index + 1]!, { kind: 'own' }));
    if (TWO.has(option)) index += 2;
    else if (ONE.has(option)) index += 1;
  }
  const plan: MountPlan = { binds: [], present: [], allowed: [], own: [] };
  // the host folders bound writable: a symlink there may be a tool's
  const writable = args.flatMap((option, index) => (option === '--bind' || option === '--bind-try' || option === '--dev-bind' || option === '--bind-fd' ? [bindAt(args, index, sources).source] : []));
  for (const [path, operation] of last) {
    if (operation.kind === 'own') plan.own.push(path);
    else if (operation.kind === 'tmpfs') plan.present.push(path);
    else {
      const judged = resolve(operation.source, writable);
      if ('refusal' in judged) {
        plan.refusal ??= judged.refusal;
        continue;
      }
      const shown = sourceOf(judged.real, host);
      if (shown === undefined) plan.present.push(path);
      else plan.binds.push({ path, ...shown, optional: operation.optional, ...(operation.deviceOnly ? { deviceOnly: true as const } : {}) });
    }
  }
  plan.allowed = [...allowed].filter((path) => !last.has(path));
  return plan;
}

/** The plan for `args` (and the sources of its binds by descriptor) from this process's own mounts now. */
export function hostMountPlan(args: readonly string[], sources: readonly string[] = []): MountPlan {
  return mountPlan(args, parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')), judgedSource, sources);
}

/**
 * Shell statements (POSIX sh, no program but the shell) that compare the run's mounts with `plan` and, at the first
 * difference, write `hldp-sandbox: …` naming the path to stderr, run `onFailure` and exit 125. Reads `mountinfo`
 * (the shell's own). Every path is a single-quoted word; mountinfo's fields are read as the kernel escapes them.
 */
export function mountCheckScript(plan: MountPlan, onFailure = '', mountinfo = '/proc/self/mountinfo'): string {
  const word = (path: string): string => shellWord(escapeMountPath(path));
  const branches = plan.binds.map((bind, index) => `${word(bind.path)}) hldp_m${index}="$d $r";;`);
  plan.present.forEach((path, index) => branches.push(`${word(path)}) hldp_p${index}=1;;`));
  const free = ["'/'", ...plan.allowed.map(word), ...plan.own.flatMap((path) => [word(path), `${word(path)}/*`])];
  branches.push(`${free.join('|')}) ;;`, '*) hldp_extra="${hldp_extra:-$m}";;');
  const lines = ['hldp_bad=; hldp_extra=', 'while read -r _ _ d r m _; do', 'case $m in', ...branches, 'esac', `done < ${shellWord(mountinfo)}`];
  plan.binds.forEach((bind, index) => {
    // a bind by descriptor whose folder may have moved: its device, and a mount there at all
    const [seen, want] = bind.deviceOnly ? [`"\${hldp_m${index}%% *}"`, shellWord(bind.device)] : [`"$hldp_m${index}"`, shellWord(`${bind.device} ${escapeMountPath(bind.root)}`)];
    const absent = bind.optional ? `[ -z "$hldp_m${index}" ] || ` : '';
    const from = bind.deviceOnly ? `device ${bind.device}, the folder the gateway opened` : `${bind.root} (device ${bind.device})`;
    const said = shellWord(`${bind.path} is not mounted from ${from} as the gateway asked, but from: `);
    lines.push(`[ -n "$hldp_bad" ] || [ ${seen} = ${want} ] || ${absent}hldp_bad=${said}"\${hldp_m${index}:-nothing}"`);
  });
  plan.present.forEach((path, index) => lines.push(`[ -n "$hldp_bad" ] || [ -n "$hldp_p${index}" ] || hldp_bad=${shellWord(`nothing is mounted at ${path}, where the gateway asked for a mount`)}`));
  lines.push(`[ -n "$hldp_bad" ] || [ -z "$hldp_extra" ] || hldp_bad="something is mounted at $hldp_extra, where the gateway asked for nothing"`);
  lines.push(`[ -z "$hldp_bad" ] || { printf '%s\\n' "hldp-sandbox: the sandbox is not the one the gateway asked for (a folder on the way swapped for a symlink?): $hldp_bad" >&2; ${onFailure}exit 125; }`);
  lines.push(['unset hldp_bad hldp_extra d r m', ...plan.binds.map((_, index) => `hldp_m${index}`), ...plan.present.map((_, index) => `hldp_p${index}`)].join(' '));
  return lines.join('\n');
}
