import { BIND_FD_BASE } from './bind-descriptors.js';
import { runProbe, probeEnvironment, probeFailure } from './probe-command.js';
import { isInside } from './workspace-rules.js';

/**
 * bubblewrap 0.8 makes each bind's missing destination by path, following symlinks, from a root where the host's is
 * still reachable as /oldroot: a tool that swapped a folder of the workspace for `sub -> ../../../../oldroot/tmp/T`
 * between the gateway's look and bubblewrap's mkdir had an empty folder or file made on the host, as the gateway's
 * user (root for a root gateway: an empty /etc/nologin stops logins). The mount check refused the run, but only after.
 * So bubblewrap starts in a mount namespace of its own where every mount of the host is read-only but the run's
 * writable roots (its workspace, its declared writable paths) and /proc (where bubblewrap writes its user namespace's
 * maps; nothing can be made there): such a creation fails with EROFS, and so does the run.
 *
 * perl (Debian's perl-base, always there) makes the system calls, as no shell tool can in one process: unshare(2) (a
 * user namespace too where the gateway is not root, mapping its user to itself, so bubblewrap runs as before),
 * mount_setattr(2) (Linux 5.12) to make the whole tree private and then read-only at once, open_tree(2) and
 * move_mount(2) to put writable copies of the roots back where they are. A root the gateway bound by descriptor
 * (`fd:N`, `--bind-fd`) is found where that descriptor is now, which is where bubblewrap binds it from, and is taken
 * only if it is the descriptor's own folder (device and inode): a tool that swapped the path for a link after the
 * gateway opened it gets neither the link's target writable nor its own folder read-only. Every path is resolved with
 * no symbolic link followed (openat2, RESOLVE_NO_SYMLINKS): the gateway binds real paths only. It then execs bubblewrap.
 * Arguments: unshare's number, the roots (`fd:N` or a path), `--`, the program.
 */
const SCRIPT = String.raw`my $nr = shift @ARGV; my @roots;
while (@ARGV && $ARGV[0] ne '--') { push @roots, shift @ARGV } shift @ARGV;
sub fail { print STDERR "hldp-host-read-only: $_[0]: " . ($_[1] // $!) . "\n"; exit 125 }
my @want;
for (@roots) {
  if (!/^fd:(\d+)$/) { push @want, [$_, '']; next }
  my $path = readlink("/proc/self/fd/$1") // fail("descriptor $1");
  my @s = stat("/proc/self/fd/$1") or fail("descriptor $1");
  push @want, [$path, "$s[0]:$s[1]"];
}
my ($uid, $gid) = ($<, (split ' ', $()[0]);
syscall($nr, 0x20000 | ($uid ? 0x10000000 : 0)) == 0 or fail('unshare');
if ($uid) {
  for (['setgroups', 'deny'], ['uid_map', "$uid $uid 1"], ['gid_map', "$gid $gid 1"]) {
    my $f; open($f, '>', "/proc/self/$_->[0]") && print($f "$_->[1]\n") && close($f) or fail("/proc/self/$_->[0]");
  }
}
my ($slash, $empty, $how, $private, $rdonly) = ('/', '', pack('Q3', 0x280000, 0, 0x6), pack('Q4', 0, 0, 1 << 18, 0), pack('Q4', 1, 0, 0, 0));
syscall(442, -100, $slash, 0x8000, $private, 32) == 0 or fail('private');
my @trees;
for (@want) {
  my ($path, $id) = @$_;
  my $at = syscall(437, -100, $path, $how, 24);
  if ($at < 0) { next if $id eq '' && $!{ENOENT}; fail("openat2 $path") }
  if ($id ne '') {
    my @s = stat("/proc/self/fd/$at") or fail("stat $path");
    "$s[0]:$s[1]" eq $id or fail($path, 'not the folder the gateway opened (moved since?)');
  }
  my $tree = syscall(428, $at, $empty, 0x1 | 0x80000 | 0x8000 | 0x1000);
  $tree >= 0 or fail("open_tree $path");
  push @trees, [$tree, $at, $path];
}
syscall(442, -100, $slash, 0x8000, $rdonly, 32) == 0 or fail('read-only');
for (@trees) { syscall(429, $_->[0], $empty, $_->[1], $empty, 0x44) == 0 or fail("move_mount $_->[2]") }
exec { $ARGV[0] } @ARGV or fail("exec $ARGV[0]");
`;

/** unshare(2)'s number where the gateway knows it; openat2, mount_setattr, open_tree and move_mount share theirs on every architecture. */
const UNSHARE: Partial<Record<string, number>> = { x64: 272, arm64: 97 };

/** The command that runs a program where the host is read-only but the given roots, or why this host has none. */
export type HostReadOnly = { ok: true; prefix: string[] } | { ok: false; reason: string };

/**
 * /proc and the outermost of the host folders bubblewrap's arguments `args` bind writable, as the wrapper takes them:
 * `fd:N` for one bound by descriptor (`sources`: their paths, from `BIND_FD_BASE` on), the path for one bound by path.
 * One inside another is writable with it (the copy is recursive); a pinned folder of the workspace is such a one.
 */
export function writableRoots(args: readonly string[], sources: readonly string[] = []): string[] {
  const roots: Array<{ source: string; root: string }> = [];
  for (let index = 0; index < args.length && args[index] !== '--'; index += 1) {
    const option = args[index]!;
    const value = args[index + 1]!;
    if (option === '--bind-fd') {
      const source = sources[Number(value) - BIND_FD_BASE];
      if (source === undefined) throw new Error(`bubblewrap's --bind-fd ${value} names no source the gateway opened`);
      roots.push({ source, root: `fd:${value}` });
    } else if (option === '--bind' || option === '--bind-try' || option === '--dev-bind') roots.push({ source: value, root: value });
  }
  const outermost = roots.filter(({ source }, index) => !roots.some((other, at) => (other.source === source ? at < index : isInside(source, other.source))));
  return ['/proc', ...outermost.map(({ root }) => root)];
}

/** bubblewrap's command line `argv` (its arguments `bound`), started where the host is read-only but what the run writes. */
export function withHostReadOnly(readOnly: HostReadOnly | undefined, bound: { args: readonly string[]; sources: readonly string[] }, argv: readonly string[]): string[] {
  return readOnly?.ok ? [...readOnly.prefix, ...writableRoots(bound.args, bound.sources), '--', ...argv] : [...argv];
}

/** Whether this host can start bubblewrap where it is read-only (perl, the system calls, the namespace), tried once with `program`. */
export async function probeHostReadOnly(perl: string, program: string): Promise<HostReadOnly> {
  const nr = UNSHARE[process.arch];
  if (nr === undefined) return { ok: false, reason: `the gateway does not know unshare(2)'s number on ${process.arch}` };
  const prefix = [perl, '-e', SCRIPT, String(nr)];
  const result = await runProbe(perl, [...prefix.slice(1), '/proc', '--', program], probeEnvironment(), []);
  return result.ok ? { ok: true, prefix } : { ok: false, reason: `bubblewrap's setup cannot be kept from writing to the host: ${probeFailure(result)}` };
}
