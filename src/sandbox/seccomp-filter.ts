/**
 * The seccomp program every sandboxed run gets from bubblewrap (`--seccomp FD`): classic BPF, written here as the
 * kernel reads it (an array of `struct sock_filter`), so that no native library is needed.
 *
 * Why (review U, U1): a unix socket bound into the sandbox is a way out that neither a read-only bind nor a private
 * network stops, and a path denylist cannot know where sockets live (lxd's, incus', docker's, a `tmux -S` socket in a
 * project folder); a tool with the host's network also shares its abstract sockets (X11's `@/tmp/.X11-unix/X0`). So
 * the sandbox refuses the way to reach one, whatever the path. And some of what the kernel offers is not namespaced
 * at all, so no namespace of bubblewrap's covers it (review V, V1 and V2). The program:
 * - `socket`: only the families a run has a use for. AF_INET and AF_INET6 (a run without `network: true` has a
 *   network namespace holding only its loopback), AF_NETLINK (glibc's getaddrinfo asks it for the addresses
 *   configured, `ip` and if_nameindex read links and routes through it; changing them takes a capability no run
 *   has), and AF_UNIX where the tool declares `unix_sockets` (else EACCES). Every other family is EAFNOSUPPORT:
 *   AF_VSOCK is one space per kernel, shared with the hypervisor (CID 2) or a host's guests, whatever the network
 *   namespace; the rest (AF_ALG, AF_TIPC, AF_RDS, AF_XDP, AF_PACKET, Bluetooth, CAN…) are kernel code no tool needs;
 * - `socketpair`: AF_UNIX only (EAFNOSUPPORT else); without `unix_sockets`, only stream and seqpacket pairs (the
 *   pipes between a tool's own processes, connected for good), every other type EACCES. A datagram socket sends to
 *   any address it is given (sendto, or a second connect), a connected pair's too, and the kernel makes AF_UNIX
 *   SOCK_RAW a datagram socket (unix_create): a list of refused types let SOCK_RAW through (review W, W1), a list of
 *   allowed ones also covers whatever type a later kernel adds;
 * - `unshare`, and `clone` with a namespace flag: EPERM, as Docker's default profile does; `clone3`: ENOSYS, its
 *   flags are behind a pointer, and glibc then falls back to `clone`. A user namespace gives its maker every
 *   capability inside it, which opens kernel code (nf_tables, overlayfs) that most local-root bugs of late are in
 *   (review W, W3). The other namespaces need a capability no run has outside a new user namespace, so refusing
 *   them too costs nothing and holds if one were ever kept; `unshare`'s other flags (CLONE_FS, CLONE_FILES) stay;
 * - `keyctl`, `add_key`, `request_key`: EPERM. Keyrings are not namespaced and a key's possessor is whoever holds
 *   the session keyring, which the gateway's tools inherit: a tool run as nobody read the operator's CIFS and
 *   Kerberos secrets from it, and could have replaced them;
 * - `io_uring_setup`: ENOSYS. A ring makes and connects sockets without the socket syscall (IORING_OP_SOCKET);
 * - every system call of another ABI than the host's own, x32's (nr | 0x40000000) and i386's on x86_64 included: the
 *   process is killed (SIGSYS). i386's `socketcall` hides the family behind a pointer seccomp cannot read, so no rule
 *   can let its TCP through and stop its AF_UNIX; and mirroring each rule for each ABI is a place to forget one. A
 *   32-bit program does not run in the sandbox.
 */

/** One instruction: `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`. */
export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The numbers of the host's ABI the program checks. */
export interface SeccompArch {
  /** `seccomp_data.arch`: AUDIT_ARCH_* */
  audit: number;
  socket: number;
  socketpair: number;
  io_uring_setup: number;
  clone: number;
  clone3: number;
  unshare: number;
  /** the keyring calls, refused */
  add_key: number;
  request_key: number;
  keyctl: number;
  /** x86_64: its x32 system calls share the arch and set this bit of the number */
  x32Bit?: number;
}

/** The ABIs the sandbox knows, by Node's `process.arch`. */
export const SECCOMP_ARCHES: Readonly<Record<string, SeccompArch>> = {
  x64: { audit: 0xc000003e, socket: 41, socketpair: 53, io_uring_setup: 425, clone: 56, clone3: 435, unshare: 272, add_key: 248, request_key: 249, keyctl: 250, x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, socket: 198, socketpair: 199, io_uring_setup: 425, clone: 220, clone3: 435, unshare: 97, add_key: 217, request_key: 218, keyctl: 219 },
};

// classic BPF opcodes (linux/bpf_common.h, linux/filter.h)
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const AND_K = 0x54;
const RET_K = 0x06;

// linux/seccomp.h
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const EACCES = 13;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
const SOCK_TYPE_MASK = 0xf;
// linux/sched.h: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; clone's low byte is its exit
// signal (CSIGNAL), so CLONE_NEWTIME (0x80) is unshare's (and clone3's) alone
const CLONE_NAMESPACES = 0x7e020000;
const CLONE_NEWTIME = 0x80;

// offsets in struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; }: an argument's low 32 bits come first
// (both ABIs are little-endian), and the kernel reads socket's family and type as ints, so only those count
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

type Label = 'allow' | 'eperm' | 'eacces' | 'enosys' | 'eafnosupport' | 'kill' | 'unshare' | 'socket' | 'socketpair';
type Step = { code: number; k: number; jt?: Label; jf?: Label };

/** The program's instructions, jumps still named. */
function steps(arch: SeccompArch, unixSockets: boolean): Array<Step | Label> {
  return [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: arch.audit, jf: 'kill' },
    { code: LD_W_ABS, k: NR },
    ...(arch.x32Bit === undefined ? [] : [{ code: JGE_K, k: arch.x32Bit, jt: 'kill' as const }]),
    { code: JEQ_K, k: arch.io_uring_setup, jt: 'enosys' },
    { code: JEQ_K, k: arch.clone3, jt: 'enosys' },
    { code: JEQ_K, k: arch.add_key, jt: 'eperm' },
    { code: JEQ_K, k: arch.request_key, jt: 'eperm' },
    { code: JEQ_K, k: arch.keyctl, jt: 'eperm' },
    ...namespaceSteps(arch),
    ...socketSteps(arch, unixSockets),
    'allow',
    { code: RET_K, k: RET_ALLOW },
    'eperm',
    { code: RET_K, k: RET_ERRNO | EPERM },
    'eacces',
    { code: RET_K, k: RET_ERRNO | EACCES },
    'enosys',
    { code: RET_K, k: RET_ERRNO | ENOSYS },
    'eafnosupport',
    { code: RET_K, k: RET_ERRNO | EAFNOSUPPORT },
    'kill',
    { code: RET_K, k: RET_KILL_PROCESS },
  ];
}

/** `clone` and `unshare` with a namespace flag: EPERM; with the number still loaded, and `socket` next. */
function namespaceSteps(arch: SeccompArch): Array<Step | Label> {
  return [
    // clone's flags are its first argument on both ABIs, and the kernel reads only their low 32 bits
    { code: JEQ_K, k: arch.clone, jf: 'unshare' },
    { code: LD_W_ABS, k: ARG0 },
    { code: JSET_K, k: CLONE_NAMESPACES, jt: 'eperm', jf: 'allow' },
    'unshare',
    // unshare refuses any flag above the low 32 bits (EINVAL), so those are all there is to read
    { code: JEQ_K, k: arch.unshare, jf: 'socket' },
    { code: LD_W_ABS, k: ARG0 },
    { code: JSET_K, k: CLONE_NAMESPACES | CLONE_NEWTIME, jt: 'eperm', jf: 'allow' },
  ];
}

/** `socket` and `socketpair`: the families and types a run may make; every other call falls through to 'allow'. */
function socketSteps(arch: SeccompArch, unixSockets: boolean): Array<Step | Label> {
  // a unix socket: allowed where declared, else refused as the host's file permissions would refuse it
  const unix: Label = unixSockets ? 'allow' : 'eacces';
  return [
    'socket',
    { code: JEQ_K, k: arch.socket, jf: 'socketpair' },
    { code: LD_W_ABS, k: ARG0 },
    { code: JEQ_K, k: AF_INET, jt: 'allow' },
    { code: JEQ_K, k: AF_INET6, jt: 'allow' },
    { code: JEQ_K, k: AF_NETLINK, jt: 'allow' },
    { code: JEQ_K, k: AF_UNIX, jt: unix, jf: 'eafnosupport' },
    'socketpair',
    { code: JEQ_K, k: arch.socketpair, jf: 'allow' },
    { code: LD_W_ABS, k: ARG0 },
    { code: JEQ_K, k: AF_UNIX, jf: 'eafnosupport' },
    ...(unixSockets
      ? []
      : [
          { code: LD_W_ABS, k: ARG1 },
          // SOCK_CLOEXEC and SOCK_NONBLOCK ride in the type's high bits
          { code: AND_K, k: SOCK_TYPE_MASK },
          // an allowlist: AF_UNIX SOCK_RAW is a datagram socket too (review W, W1)
          { code: JEQ_K, k: SOCK_STREAM, jt: 'allow' as const },
          { code: JEQ_K, k: SOCK_SEQPACKET, jt: 'allow' as const, jf: 'eacces' as const },
        ]),
  ];
}

/** The program's instructions: each jump an offset from the next instruction, as the kernel counts. */
export function seccompInstructions(arch: SeccompArch, unixSockets: boolean): SockFilter[] {
  const program = steps(arch, unixSockets);
  const at = new Map<Label, number>();
  const instructions: Step[] = [];
  for (const item of program) {
    if (typeof item === 'string') at.set(item, instructions.length);
    else instructions.push(item);
  }
  return instructions.map((step, index) => {
    const offset = (label: Label | undefined): number => {
      if (label === undefined) return 0;
      const distance = at.get(label)! - index - 1;
      // a jump goes forward only, and at most 255 instructions
      if (distance < 0 || distance > 255) throw new Error(`seccomp jump to ${label} out of range`);
      return distance;
    };
    return { code: step.code, jt: offset(step.jt), jf: offset(step.jf), k: step.k >>> 0 };
  });
}

/** The program as bubblewrap reads it from its descriptor: 8 bytes an instruction, in the host's (little-endian) order. */
export function seccompProgram(arch: SeccompArch, unixSockets: boolean): Buffer {
  const instructions = seccompInstructions(arch, unixSockets);
  const bytes = Buffer.alloc(instructions.length * 8);
  instructions.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jt, index * 8 + 2);
    bytes.writeUInt8(instruction.jf, index * 8 + 3);
    bytes.writeUInt32LE(instruction.k, index * 8 + 4);
  });
  return bytes;
}
