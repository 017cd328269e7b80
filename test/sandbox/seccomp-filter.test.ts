import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SECCOMP_ARCHES, seccompInstructions, seccompProgram, type SockFilter } from '../../src/sandbox/seccomp-filter.js';

// the x86_64 program, checked by hand against linux/filter.h, linux/seccomp.h and the syscall table:
// ld w abs 0x20, jeq k 0x15, jge k 0x35, and k 0x54, ret k 0x06; jumps count from the next instruction
const X64_STRICT = [
  '0020 00 00 00000004', //  0 ld  [4]              seccomp_data.arch
  '0015 00 17 c000003e', //  1 jeq AUDIT_ARCH_X86_64, else 25 (kill)
  '0020 00 00 00000000', //  2 ld  [0]              nr
  '0035 15 00 40000000', //  3 jge 0x40000000 (x32) → 25 (kill)
  '0015 12 00 000001a9', //  4 jeq 425 io_uring_setup → 23 (ENOSYS)
  '0015 0f 00 000000f8', //  5 jeq 248 add_key → 21 (EPERM)
  '0015 0e 00 000000f9', //  6 jeq 249 request_key → 21 (EPERM)
  '0015 0d 00 000000fa', //  7 jeq 250 keyctl → 21 (EPERM)
  '0015 00 05 00000029', //  8 jeq 41 socket, else 14
  '0020 00 00 00000010', //  9 ld  [16]             args[0], low half: the family
  '0015 09 00 00000002', // 10 jeq AF_INET → 20 (allow)
  '0015 08 00 0000000a', // 11 jeq AF_INET6 → 20 (allow)
  '0015 07 00 00000010', // 12 jeq AF_NETLINK → 20 (allow)
  '0015 08 0a 00000001', // 13 jeq AF_UNIX → 22 (EACCES), else 24 (EAFNOSUPPORT)
  '0015 00 05 00000035', // 14 jeq 53 socketpair, else 20 (allow)
  '0020 00 00 00000010', // 15 ld  [16]             args[0]
  '0015 00 07 00000001', // 16 jeq AF_UNIX, else 24 (EAFNOSUPPORT)
  '0020 00 00 00000018', // 17 ld  [24]             args[1]: the type
  '0054 00 00 0000000f', // 18 and SOCK_TYPE_MASK
  '0015 02 00 00000002', // 19 jeq SOCK_DGRAM → 22 (EACCES), else 20 (allow)
  '0006 00 00 7fff0000', // 20 ret ALLOW
  '0006 00 00 00050001', // 21 ret ERRNO(EPERM)
  '0006 00 00 0005000d', // 22 ret ERRNO(EACCES)
  '0006 00 00 00050026', // 23 ret ERRNO(ENOSYS)
  '0006 00 00 00050061', // 24 ret ERRNO(EAFNOSUPPORT)
  '0006 00 00 80000000', // 25 ret KILL_PROCESS
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

describe('the seccomp program (review U, U1; review V, V1 and V2)', () => {
  it('is, on x86_64, the listing checked by hand', () => {
    const listing = seccompInstructions(SECCOMP_ARCHES.x64!, false).map(hex);
    expect(listing).toEqual(X64_STRICT);
  });

  it('reaches bubblewrap as 8 little-endian bytes an instruction', () => {
    const bytes = seccompProgram(SECCOMP_ARCHES.x64!, false);
    expect(bytes.length).toBe(26 * 8);
    expect([...bytes.subarray(8, 16)]).toEqual([0x15, 0x00, 0x00, 0x17, 0x3e, 0x00, 0x00, 0xc0]);
  });

  it('differs, for a tool that declares unix_sockets, only in letting unix sockets and datagram pairs through', () => {
    expect(seccompInstructions(SECCOMP_ARCHES.x64!, true).map(hex)).toEqual([
      '0020 00 00 00000004',
      '0015 00 14 c000003e', //  1 else 22 (kill)
      '0020 00 00 00000000',
      '0035 12 00 40000000', //  3 x32 → 22 (kill)
      '0015 0f 00 000001a9', //  4 io_uring_setup → 20 (ENOSYS)
      '0015 0c 00 000000f8', //  5 add_key → 18 (EPERM)
      '0015 0b 00 000000f9',
      '0015 0a 00 000000fa',
      '0015 00 05 00000029', //  8 socket, else 14
      '0020 00 00 00000010',
      '0015 06 00 00000002', // 10 AF_INET → 17 (allow)
      '0015 05 00 0000000a',
      '0015 04 00 00000010',
      '0015 03 07 00000001', // 13 jeq AF_UNIX → 17 (allow), else 21 (EAFNOSUPPORT)
      '0015 00 02 00000035', // 14 jeq 53 socketpair, else 17 (allow)
      '0020 00 00 00000010', // 15 ld  [16]
      '0015 00 04 00000001', // 16 jeq AF_UNIX → 17 (allow), else 21 (EAFNOSUPPORT)
      ...X64_STRICT.slice(20),
    ]);
  });

  for (const [name, arch] of Object.entries(SECCOMP_ARCHES)) {
    it(`decides every system call of ${name} as the rules say (property)`, () => {
      const keyring = [arch.add_key, arch.request_key, arch.keyctl];
      const numbers = fc.oneof(fc.constantFrom(arch.socket, arch.socketpair, arch.io_uring_setup, ...keyring, 0, 39, 0x40000000 | arch.socket, 0x40000000 | arch.keyctl), fc.nat({ max: 0xffffffff }));
      // AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_ALG, AF_VSOCK, AF_XDP, and the high half the kernel ignores
      const family = fc.oneof(fc.constantFrom(1, 2, 10, 16, 17, 38, 40, 44, 0x100000001, 0x100000028, 0x10000000a), fc.nat({ max: 0xffffffff }));
      const type = fc.oneof(fc.constantFrom(1, 2, 5, 2 | 0x80000, 2 | 0x800, 1 | 0x80000), fc.nat({ max: 0xffffffff }));
      fc.assert(
        fc.property(fc.boolean(), numbers, fc.oneof(fc.constant(arch.audit), fc.constantFrom(0x40000003, 0xc000003e, 0xc00000b7), fc.nat({ max: 0xffffffff })), family, type, (unixSockets, nr, audit, arg0, arg1) => {
          const program = seccompInstructions(arch, unixSockets);
          // the kernel hands the filter each argument's low 32 bits at its offset, which is what `word` reads
          const got = verdict(program, { nr, arch: audit, args: [arg0 % 2 ** 32, arg1 % 2 ** 32] });
          const low0 = arg0 % 2 ** 32;
          let want = ALLOW;
          if (audit !== arch.audit || (arch.x32Bit !== undefined && nr >= arch.x32Bit)) want = KILL;
          else if (nr === arch.io_uring_setup) want = ENOSYS;
          else if (keyring.includes(nr)) want = EPERM;
          else if (nr === arch.socket) {
            if (low0 === 1) want = unixSockets ? ALLOW : EACCES;
            else if (!ALLOWED_FAMILIES.includes(low0)) want = EAFNOSUPPORT;
          } else if (nr === arch.socketpair) {
            if (low0 !== 1) want = EAFNOSUPPORT;
            else if (!unixSockets && ((arg1 % 2 ** 32) & 0xf) === 2) want = EACCES;
          }
          expect(got).toBe(want);
        }),
        { numRuns: 2000 },
      );
    });
  }
});
