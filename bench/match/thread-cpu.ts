// The CPU time of the calling thread alone, in milliseconds, to the nanosecond (Linux, through WASI's
// `clock_time_get(thread_cputime)`, which Node 20 has no other way to read): `process.cpuUsage()` counts every
// thread of the process, so a request's figure also holds whatever the compiler's and the collector's threads
// did meanwhile, and on a loaded machine the wall clock waits for a core. One reading costs ~1-2 µs.

// (module (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32))) (memory (export "memory") 1)
//   (func (export "now") (result i64) (drop (call 0 (i32.const 3) (i64.const 1) (i32.const 0))) (i64.load (i32.const 0))))
const text = (value: string): number[] => [value.length, ...new TextEncoder().encode(value)];
const section = (id: number, body: number[]): number[] => [id, body.length, ...body];
const code = [0x00, 0x41, 0x03, 0x42, 0x01, 0x41, 0x00, 0x10, 0x00, 0x1a, 0x41, 0x00, 0x29, 0x03, 0x00, 0x0b];
const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x02, 0x60, 0x03, 0x7f, 0x7e, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x01, 0x7e]),
  ...section(2, [0x01, ...text('wasi_snapshot_preview1'), ...text('clock_time_get'), 0x00, 0x00]),
  ...section(3, [0x01, 0x01]),
  ...section(5, [0x01, 0x00, 0x01]),
  ...section(7, [0x02, ...text('memory'), 0x02, 0x00, ...text('now'), 0x00, 0x01]),
  ...section(10, [0x01, code.length, ...code]),
]);

// the tsconfig's libraries have no WebAssembly types: the two calls used, as Node has them
interface Wasm {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** A reader of this thread's CPU time in milliseconds, or undefined where WASI cannot give it. */
export async function threadCpuClock(): Promise<(() => number) | undefined> {
  try {
    // imported here: importing node:wasi prints an experimental warning, which a process that never reads the clock need not
    const { WASI } = await import('node:wasi');
    const wasi = new WASI({ version: 'preview1' });
    const { instance } = await wasm.instantiate(MODULE, wasi.getImportObject());
    wasi.initialize(instance as Parameters<typeof wasi.initialize>[0]);
    const now = instance.exports.now as () => bigint;
    const first = now();
    if (first <= 0n) return undefined;
    return () => Number(now()) / 1e6;
  } catch {
    return undefined;
  }
}
