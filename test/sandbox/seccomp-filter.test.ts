import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SECCOMP_ARCHES, seccompInstructions, seccompProgram, type SeccompArch, type SockFilter } from '../../src/sandbox/seccomp-filter.js';
import { runs } from '../helpers/property-runs.js';

// the x86_64 program, checked by hand against linux/filter.h, linux/seccomp.h and the syscall table:
// ld w abs 0x20, jeq k 0x15, jge k 0x35, jset k 0x45, and k 0x54, ret k 0x06; jumps count from the next instruction
const X64_STRICT = [
  '0020 00 00 00000004', //  0 ld  [4]              seccomp_data.arch
  '0015 00 1f c000003e', //  1 jeq AUDIT_ARCH_X86_64, else 33 (kill)
  '0020 00 00 00000000', //  2 ld  [0]              nr
  '0035 1d 00 40000000', //  3 jge 0x40000000 (x32) → 33 (kill)
  '0015 1a 00 000001a9', //  4 jeq 425 io_uring_setup → 31 (ENOSYS)
  '0015 19 00 000001b3', //  5 jeq 435 clone3 → 31 (ENOSYS)
  '0015 16 00 000000f8', //  6 jeq 248 add_key → 29 (EPERM)
  '0015 15 00 000000f9', //  7 jeq 249 request_key → 29 (EPERM)
  '0015 14 00 000000fa', //  8 jeq 250 keyctl → 29 (EPERM)
  '0015 00 02 00000038', //  9 jeq 56 clone, else 12
  '0020 00 00 00000010', // 10 ld  [16]             args[0], low half: the flags
  '0045 11 10 7e020000', // 11 jset CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET} → 29 (EPERM), else 28 (allow)
  '0015 00 02 00000110', // 12 jeq 272 unshare, else 15
  '0020 00 00 00000010', // 13 ld  [16]             args[0]
  '0045 0e 0d 7e020080', // 14 jset the same | CLONE_NEWTIME → 29 (EPERM), else 28 (allow)
  '0015 00 05 00000029', // 15 jeq 41 socket, else 21
  '0020 00 00 00000010', // 16 ld  [16]             args[0], low half: the family
  '0015 0a 00 00000002', // 17 jeq AF_INET → 28 (allow)
  '0015 09 00 0000000a', // 18 jeq AF_INET6 → 28 (allow)
  '0015 08 00 00000010', // 19 jeq AF_NETLINK → 28 (allow)
  '0015 09 0b 00000001', // 20 jeq AF_UNIX → 30 (EACCES), else 32 (EAFNOSUPPORT)
  '0015 00 06 00000035', // 21 jeq 53 socketpair, else 28 (allow)
  '0020 00 00 00000010', // 22 ld  [16]             args[0]
  '0015 00 08 00000001', // 23 jeq AF_UNIX, else 32 (EAFNOSUPPORT)
  '0020 00 00 00000018', // 24 ld  [24]             args[1]: the type
  '0054 00 00 0000000f', // 25 and SOCK_TYPE_MASK
  '0015 01 00 00000001', // 26 jeq SOCK_STREAM → 28 (allow)
  '0015 00 02 00000005', // 27 jeq SOCK_SEQPACKET → 28 (allow), else 30 (EACCES)
  '0006 00 00 7fff0000', // 28 ret ALLOW
  '0006 00 00 00050001', // 29 ret ERRNO(EPERM)
  '0006 00 00 0005000d', // 30 ret ERRNO(EACCES)
  '0006 00 00 00050026', // 31 ret ERRNO(ENOSYS)
  '0006 00 00 00050061', // 32 ret ERRNO(EAFNOSUPPORT)
  '0006 00 00 80000000', // 33 ret KILL_PROCESS
];

function hex(instruction: SockFilter): string {
  const h = (value: number, width: number): string => value.toString(16).padStart(width, '0');
  return `${h(instruction.code, 4)} ${h(instruction.jt, 2)} ${h(instruction.jf, 2)} ${h(instruction.k, 8)}`;
}

/** Runs a classic-BPF seccomp program on one system call, as the kernel would: its verdict. */
function verdict(program: readonly SockFilter[], data: { nr: number; arch: number; args: readonly number[] }): number {
  const word = (offset: number): number => (offset === 0 ? data.nr : offset === 4 ? data.arch : data.args[(offset - 16) / 8]!) >>> 0;
  let a = 0;
  for (let pc = 0; pc < program.length; pc += 1) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) a = word(k);
    else if (code === 0x54) a = (a & k) >>> 0;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x45) pc += (a & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unknown opcode ${code}`);
  }
  throw new Error('fell off the end');
}

const ALLOW = 0x7fff0000;
const EACCES = 0x0005000d;
const ENOSYS = 0x00050026;
const EPERM = 0x00050001;
const EAFNOSUPPORT = 0x00050061;
// the families a run may make a socket of, whatever it declares: AF_INET, AF_INET6, AF_NETLINK
const ALLOWED_FAMILIES = [2, 10, 16];
const KILL = 0x80000000;
// linux/sched.h, one by one: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; and NEWTIME, unshare's only
const NAMESPACES = [0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000];
const CLONE_NEWTIME = 0x80;

/** One system call as the property draws it: an argument may have a high half, which the kernel does not show. */
type Call = { nr: number; arch: number; args: [number, number] };

/** The call as the filter sees it: each argument's low 32 bits. */
function lowHalves(call: Call): { nr: number; arch: number; args: number[] } {
  return { nr: call.nr, arch: call.arch, args: call.args.map((arg) => arg % 2 ** 32) };
}

/** What the rules say of a call, written from them and not from the program. */
function expected(arch: SeccompArch, unixSockets: boolean, { nr, arch: audit, args }: Call): number {
  const low0 = args[0] % 2 ** 32;
  const sets = (flag: number): boolean => Math.floor(low0 / flag) % 2 === 1;
  if (audit !== arch.audit || (arch.x32Bit !== undefined && nr >= arch.x32Bit)) return KILL;
  if (nr === arch.io_uring_setup || nr === arch.clone3) return ENOSYS;
  if ([arch.add_key, arch.request_key, arch.keyctl].includes(nr)) return EPERM;
  // clone's low byte is its exit signal, not CLONE_NEWTIME
  if (nr === arch.clone) return NAMESPACES.some(sets) ? EPERM : ALLOW;
  if (nr === arch.unshare) return [...NAMESPACES, CLONE_NEWTIME].some(sets) ? EPERM : ALLOW;
  if (nr === arch.socket) {
    if (low0 === 1) return unixSockets ? ALLOW : EACCES;
    return ALLOWED_FAMILIES.includes(low0) ? ALLOW : EAFNOSUPPORT;
  }
  if (nr === arch.socketpair) {
    if (low0 !== 1) return EAFNOSUPPORT;
    // an allowlist: only SOCK_STREAM (1) and SOCK_SEQPACKET (5) pairs are connected for good
    return unixSockets || [1, 5].includes((args[1] % 2 ** 32) % 16) ? ALLOW : EACCES;
  }
  return ALLOW;
}

// AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_ALG, AF_VSOCK, AF_XDP, and the high half the kernel ignores
const FAMILIES = fc.constantFrom(1, 2, 10, 16, 17, 38, 40, 44, 0x100000001, 0x100000028, 0x10000000a);
// clone's and unshare's flags: fork's (SIGCHLD), a thread's, vfork's, unshare's harmless CLONE_FS and CLONE_FILES, each
// namespace flag alone, one beside a thread's flags or in the high half (which the kernel does not read), and any set of them
const FLAGS = fc.oneof(
  fc.constantFrom(0, 17, 0x3d0f00, 0x4111, 0x200, 0x400, 0x600, 0x91, ...NAMESPACES, CLONE_NEWTIME, 0x3d0f00 | 0x10000000, 0x100000000 + 0x10000000, 0x100000011),
  fc.subarray([...NAMESPACES, CLONE_NEWTIME]).map((some) => some.reduce((all, flag) => all | flag, 0x11) >>> 0),
);
// SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET, 0, the rest of the mask and above
// it, alone or with SOCK_CLOEXEC and SOCK_NONBLOCK beside, or any word: the kernel reads type & 0xf (review W, W1)
const KINDS = fc.constantFrom(1, 2, 3, 4, 5, 6, 10, 0, 15, 0x10, 0x11);
const TYPES = fc.oneof(KINDS, fc.tuple(KINDS, fc.constantFrom(0x80000, 0x800, 0x80800)).map(([kind, high]) => kind | high), fc.nat({ max: 0xffffffff }));

describe('the seccomp program (review U, U1; review V, V1 and V2; review W, W1 and W3)', () => {
  it('is, on x86_64, the listing checked by hand', () => {
    const listing = seccompInstructions(SECCOMP_ARCHES.x64!, false).map(hex);
    expect(listing).toEqual(X64_STRICT);
  });

  it('reaches bubblewrap as 8 little-endian bytes an instruction', () => {
    const bytes = seccompProgram(SECCOMP_ARCHES.x64!, false);
    expect(bytes.length).toBe(34 * 8);
    expect([...bytes.subarray(8, 16)]).toEqual([0x15, 0x00, 0x00, 0x1f, 0x3e, 0x00, 0x00, 0xc0]);
  });

  it('differs, for a tool that declares unix_sockets, only in letting unix sockets and every socketpair through', () => {
    expect(seccompInstructions(SECCOMP_ARCHES.x64!, true).map(hex)).toEqual([
      '0020 00 00 00000004',
      '0015 00 1b c000003e', //  1 else 29 (kill)
      '0020 00 00 00000000',
      '0035 19 00 40000000', //  3 x32 → 29 (kill)
      '0015 16 00 000001a9', //  4 io_uring_setup → 27 (ENOSYS)
      '0015 15 00 000001b3', //  5 clone3 → 27 (ENOSYS)
      '0015 12 00 000000f8', //  6 add_key → 25 (EPERM)
      '0015 11 00 000000f9',
      '0015 10 00 000000fa',
      '0015 00 02 00000038', //  9 clone, else 12
      '0020 00 00 00000010',
      '0045 0d 0c 7e020000', // 11 jset namespaces → 25 (EPERM), else 24 (allow)
      '0015 00 02 00000110', // 12 unshare, else 15
      '0020 00 00 00000010',
      '0045 0a 09 7e020080', // 14 jset namespaces | CLONE_NEWTIME → 25 (EPERM), else 24 (allow)
      '0015 00 05 00000029', // 15 socket, else 21
      '0020 00 00 00000010',
      '0015 06 00 00000002', // 17 AF_INET → 24 (allow)
      '0015 05 00 0000000a',
      '0015 04 00 00000010',
      '0015 03 07 00000001', // 20 jeq AF_UNIX → 24 (allow), else 28 (EAFNOSUPPORT)
      '0015 00 02 00000035', // 21 jeq 53 socketpair, else 24 (allow)
      '0020 00 00 00000010', // 22 ld  [16]
      '0015 00 04 00000001', // 23 jeq AF_UNIX → 24 (allow), else 28 (EAFNOSUPPORT)
      ...X64_STRICT.slice(28),
    ]);
  });

  for (const [name, arch] of Object.entries(SECCOMP_ARCHES)) {
    const decides = (unixSockets: boolean, call: Call): void => {
      expect(verdict(seccompInstructions(arch, unixSockets), lowHalves(call))).toBe(expected(arch, unixSockets, call));
    };
    const word = fc.nat({ max: 0xffffffff });

    it(`decides every system call of ${name} as the rules say (property)`, () => {
      const numbers = fc.constantFrom(arch.socket, arch.socketpair, arch.io_uring_setup, arch.clone, arch.clone3, arch.unshare, arch.add_key, arch.request_key, arch.keyctl, 0, 39, 0x40000000 | arch.socket, 0x40000000 | arch.keyctl, 0x40000000 | arch.clone);
      // the host's own ABI mostly, since every rule but the first is behind it
      const audits = fc.oneof({ arbitrary: fc.constant(arch.audit), weight: 4 }, fc.constantFrom(0x40000003, 0xc000003e, 0xc00000b7), word);
      const call = fc.record({ nr: fc.oneof({ arbitrary: numbers, weight: 3 }, word), arch: audits, args: fc.tuple(fc.oneof(FAMILIES, FLAGS, word), TYPES) });
      fc.assert(fc.property(fc.boolean(), call, decides), { numRuns: runs(2000) });
    });

    it(`decides ${name}'s socketpair by family and type alone (property)`, () => {
      const call = fc.record({ nr: fc.constant(arch.socketpair), arch: fc.constant(arch.audit), args: fc.tuple(fc.oneof(fc.constant(1), FAMILIES, word), TYPES) });
      fc.assert(fc.property(fc.boolean(), call, decides), { numRuns: runs(1000) });
    });

    it(`decides ${name}'s clone and unshare by their namespace flags alone (property)`, () => {
      const call = fc.record({ nr: fc.constantFrom(arch.clone, arch.unshare), arch: fc.constant(arch.audit), args: fc.tuple(fc.oneof(FLAGS, word), word) });
      fc.assert(fc.property(fc.boolean(), call, decides), { numRuns: runs(1000) });
    });
  }
});
