import { runProbe, probeEnvironment, probeFailure } from './probe-command.js';
import { isInside } from './workspace-rules.js';

/**
 * bubblewrap 0.8 makes each bind's missing destination by path, following symlinks, from a root where the host's is
 * still reachable as /oldroot: a tool that swapped a folder of the workspace for `sub -> ../../../../oldroot/tmp/T`
 * between the gateway's look and bubblewrap's mkdir had an empty folder or file made on the host, as the gateway's
 * user (root for a root gateway: an empty /etc/nologin stops logins). The mount check refused the run, but only after.
 * So bubblewrap starts in a mount namespace of its own where every mount of the host is read-only but the run's
 * writable roots (its workspace, its declared writable paths, kept as they were) and /proc (where bubblewrap writes its
 * user namespace's maps; nothing can be made there): such a creation fails with EROFS, and so does the run.
 *
 * perl (Debian's perl-base, always there) makes the system calls, as no shell tool can in one process: unshare(2) (a
 * user namespace too where the gateway is not root, mapping its user to itself, so bubblewrap runs as before),
 * mount_setattr(2) (Linux 5.12) to make the whole tree private and then read-only at once, open_tree(2) and
 * move_mount(2) to put untouched copies of the writable roots back. It execs bubblewrap, which then runs as before.
 * Arguments: unshare's number, the roots, `--`, the program.
 */
const SCRIPT = String.raw`use strict;
my $nr = shift @ARGV; my @roots;
while (@ARGV && $ARGV[0] ne '--') { push @roots, shift @ARGV } shift @ARGV;
sub fail { print STDERR "hldp-host-read-only: $_[0]: $!\n"; exit 125 }
my ($uid, $gid) = ($<, (split ' ', $()[0]);
syscall($nr, 0x20000 | ($uid ? 0x10000000 : 0)) == 0 or fail('unshare');
if ($uid) {
  for (['setgroups', 'deny'], ['uid_map', "$uid $uid 1"], ['gid_map', "$gid $gid 1"]) {
    my $f; open($f, '>', "/proc/self/$_->[0]") && print($f "$_->[1]\n") && close($f) or fail("/proc/self/$_->[0]");
  }
}
my ($slash, $empty, $none, $private, $rdonly) = ('/', '', pack('Q4', 0, 0, 0, 0), pack('Q4', 0, 0, 1 << 18, 0), pack('Q4', 1, 0, 0, 0));
syscall(442, -100, $slash, 0x8000, $private, 32) == 0 or fail('private');
my %tree;
for my $root (@roots) {
  my $fd = syscall(428, -100, $root, 0x1 | 0x80000 | 0x8000 | 0x100);
  if ($fd >= 0) { $tree{$root} = $fd } elsif (!$!{ENOENT}) { fail("open_tree $root") }
}
syscall(442, -100, $slash, 0x8000, $rdonly, 32) == 0 or fail('read-only');
for my $root (grep { exists $tree{$_} } @roots) { syscall(429, $tree{$root}, $empty, -100, $root, 0x4) == 0 or fail("move_mount $root") }
exec { $ARGV[0] } @ARGV or fail("exec $ARGV[0]");
`;

/** unshare(2)'s number where the gateway knows it; mount_setattr, open_tree and move_mount share theirs on every architecture. */
const UNSHARE: Partial<Record<string, number>> = { x64: 272, arm64: 97 };

/** The command that runs a program where the host is read-only but the given roots, or why this host has none. */
export type HostReadOnly = { ok: true; prefix: string[] } | { ok: false; reason: string };

/** /proc and the outermost of the paths a run writes (its workspace and its declared writable paths, real). */
export function writableRoots(writable: readonly string[]): string[] {
  const paths = [...new Set(writable)];
  const outermost = paths.filter((path) => !paths.some((other) => other !== path && isInside(path, other)));
  return ['/proc', ...outermost.sort()];
}

/** bubblewrap's command line `argv`, started where the host is read-only but `writable` (what the run writes, real). */
export function withHostReadOnly(readOnly: HostReadOnly | undefined, writable: readonly string[], argv: readonly string[]): string[] {
  return readOnly?.ok ? [...readOnly.prefix, ...writableRoots(writable), '--', ...argv] : [...argv];
}

/** Whether this host can start bubblewrap where it is read-only (perl, the system calls, the namespace), tried once with `program`. */
export async function probeHostReadOnly(perl: string, program: string): Promise<HostReadOnly> {
  const nr = UNSHARE[process.arch];
  if (nr === undefined) return { ok: false, reason: `the gateway does not know unshare(2)'s number on ${process.arch}` };
  const prefix = [perl, '-e', SCRIPT, String(nr)];
  const result = await runProbe(perl, [...prefix.slice(1), '/proc', '--', program], probeEnvironment(), []);
  return result.ok ? { ok: true, prefix } : { ok: false, reason: `bubblewrap's setup cannot be kept from writing to the host: ${probeFailure(result)}` };
}
