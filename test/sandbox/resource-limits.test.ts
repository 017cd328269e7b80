import { describe, expect, it } from 'vitest';
import { DEFAULT_RESOURCE_LIMITS } from '../../src/core/index.js';
import { decodeStatus, limitHit, type LimitEvidence } from '../../src/sandbox/index.js';

const evidence = (overrides: Partial<LimitEvidence>): LimitEvidence => ({ exitCode: 1, signal: null, stderr: '', stopped: false, refusedForks: undefined, ...overrides });

describe('limitHit', () => {
  describe('when the kernel says which limit it was', () => {
    it.each([
      [{ signal: 'SIGXCPU', exitCode: null }, 'cpu_seconds'],
      [{ signal: 'SIGXFSZ', exitCode: null }, 'file_size'],
      [{ refusedForks: 3, exitCode: 0 }, 'processes'],
      [{ refusedForks: 1, stopped: true, exitCode: null, signal: 'SIGKILL' }, 'processes'],
    ] as const)('reads %j as %s', (given, name) => {
      expect(limitHit(evidence(given), DEFAULT_RESOURCE_LIMITS)?.name).toBe(name);
    });
  });

  describe('when a failed program reports the refusal itself', () => {
    it.each([
      ['MemoryError\n', 'memory'],
      ['Out of memory!\n', 'memory'],
      ['tail: memory exhausted\n', 'memory'],
      ['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n', 'memory'],
      ["terminate called after throwing an instance of 'std::bad_alloc'\n", 'memory'],
      ['sh: 1: Cannot fork\n', 'processes'],
      ['bash: fork: retry: Resource temporarily unavailable\n', 'processes'],
      ['cp: error writing \'x\': File too large\n', 'file_size'],
    ])('reads %j as %s', (stderr, name) => {
      expect(limitHit(evidence({ stderr }), DEFAULT_RESOURCE_LIMITS)?.name).toBe(name);
    });

    it('reads a refused fork as a hit even when the program carries on and exits 0', () => {
      expect(limitHit(evidence({ stderr: 'sh: 0: Cannot fork\n', exitCode: 0 }), DEFAULT_RESOURCE_LIMITS)?.name).toBe('processes');
    });

    it('believes a cgroup that refused no fork over a message that says otherwise', () => {
      expect(limitHit(evidence({ stderr: 'sh: 1: Cannot fork\n', refusedForks: 0 }), DEFAULT_RESOURCE_LIMITS)).toBeUndefined();
    });
  });

  describe('when nothing points at a limit', () => {
    it.each([
      [evidence({ exitCode: 0, stderr: 'MemoryError\n' })],
      [evidence({ exitCode: 2, stderr: "ls: cannot access '/nope': No such file or directory\n" })],
      [evidence({ exitCode: null, signal: 'SIGSEGV' })],
      [evidence({ stopped: true, exitCode: null, signal: 'SIGTERM' })],
    ])('returns nothing for %j', (given) => {
      expect(limitHit(given, DEFAULT_RESOURCE_LIMITS)).toBeUndefined();
    });
  });

  it('names the limit and its value in the message', () => {
    expect(limitHit(evidence({ stderr: 'MemoryError\n' }), { ...DEFAULT_RESOURCE_LIMITS, memory: 256 * 1024 * 1024 })?.message).toBe(
      "resource limit: the memory limit of 256 MiB of private writable memory per process was reached (RLIMIT_DATA); the program's own error follows",
    );
  });
});

describe('decodeStatus', () => {
  it.each([
    [0, null, { exitCode: 0, signal: null }],
    [3, null, { exitCode: 3, signal: null }],
    [128, null, { exitCode: 128, signal: null }],
    [137, null, { exitCode: null, signal: 'SIGKILL' }],
    [134, null, { exitCode: null, signal: 'SIGABRT' }],
    [152, null, { exitCode: null, signal: 'SIGXCPU' }],
    [255, null, { exitCode: 255, signal: null }],
    [null, 'SIGTERM', { exitCode: null, signal: 'SIGTERM' }],
  ])('reads status %j (signal %j) as %j', (exitCode, signal, decoded) => {
    expect(decodeStatus(exitCode, signal)).toEqual(decoded);
  });
});
