// What the rescan benchmarks share (rescan.ts over smart HTTP, folder-rescan.ts over a plain folder): this version's
// Scanner beside another checkout's, each with its own cache, the snapshot's share of each rescan timed, and rounds
// of one change that both versions rescan, alternately first, the first round a warm-up.
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner } from '../../src/scanner/index.js';

type ScannerClass = typeof Scanner;

/** A scanner of one version, and the milliseconds its source's snapshot took since they were last reset. */
export interface TimedScanner {
  scanner: Scanner;
  snapshotMs: number;
}

/** The versions compared, by name: another checkout's (`before`, a folder holding its src/) first when given, then this one's. */
export async function scannerVersions(before: string | undefined): Promise<Array<[string, ScannerClass]>> {
  const versions: Array<[string, ScannerClass]> = [['this', Scanner]];
  if (before) {
    const other = (await import(pathToFileURL(join(resolve(before), 'src/scanner/index.ts')).href)) as { Scanner: ScannerClass };
    versions.unshift(['before', other.Scanner]);
  }
  return versions;
}

/** A scanner of each version over `repo`, its cache `cache-<name>` under `cacheRoot`, scanned once and its cache written, its snapshots timed from then on. */
export async function timedScanners(versions: Array<[string, ScannerClass]>, repo: string, cacheRoot: string, check: (scanner: Scanner) => void = () => {}): Promise<Map<string, TimedScanner>> {
  const scanners = new Map<string, TimedScanner>();
  for (const [name, Version] of versions) {
    const scanner = new Version({ repo, cacheDir: join(cacheRoot, `cache-${name}`) });
    check(scanner);
    await scanner.scan();
    await scanner.flush();
    const timed = { scanner, snapshotMs: 0 };
    const source = scanner.source as { snapshot: (...hint: unknown[]) => Promise<unknown> };
    const snapshot = source.snapshot.bind(source);
    source.snapshot = async (...hint: unknown[]) => {
      const start = performance.now();
      try {
        return await snapshot(...hint);
      } finally {
        timed.snapshotMs += performance.now() - start;
      }
    };
    scanners.set(name, timed);
  }
  return scanners;
}

/** One round's part of a benchmark: the change both versions must see, and one version's rescan of it. */
export interface Rounds {
  /** rounds measured (one more runs first, as a warm-up) */
  runs: number;
  /** Makes round `run`'s change (tool 0's definition to variant `run + 1`). */
  change(run: number): Promise<void>;
  /** One version's rescan: the index it made and samples of the benchmark's own (milliseconds by name). */
  rescan(name: string, timed: TimedScanner, run: number): Promise<{ index: ToolIndex; samples?: Record<string, number> }>;
  /** Writes the version's cache after its rescan (default: `flush()`): not part of the rescan, but CPU the next one must not share. */
  write?(name: string, timed: TimedScanner, run: number): Promise<void>;
}

/**
 * Runs the rounds over `scanners`, alternately first, and returns each version's measured samples: `wall` and `cpu`
 * (this process's, all threads) of the rescan, `snapshot` (its source's share), `write` (the cache write after it)
 * and the benchmark's own. A rescan that missed the round's change throws.
 */
export async function alternate(scanners: Map<string, TimedScanner>, rounds: Rounds): Promise<Map<string, Record<string, number[]>>> {
  const names = [...scanners.keys()];
  const samples = new Map(names.map((name) => [name, {} as Record<string, number[]>]));
  for (let run = 0; run <= rounds.runs; run++) {
    await rounds.change(run);
    for (const name of run % 2 === 0 ? names : [...names].reverse()) {
      const timed = scanners.get(name)!;
      timed.snapshotMs = 0;
      const start = performance.now();
      const startCpu = cpuMs();
      const { index, samples: own } = await rounds.rescan(name, timed, run);
      const wall = performance.now() - start;
      const cpu = cpuMs() - startCpu;
      if (!index.tools[0]?.intent.includes(`variant ${run + 1}`)) throw new Error(`${name}: the rescan missed the change`);
      const startWrite = performance.now();
      await (rounds.write ? rounds.write(name, timed, run) : timed.scanner.flush());
      if (run === 0) continue;
      const sample = samples.get(name)!;
      for (const [key, value] of Object.entries({ wall, cpu, snapshot: timed.snapshotMs, ...own, write: performance.now() - startWrite })) (sample[key] ??= []).push(value);
    }
  }
  return samples;
}

/** A sampling CPU profiler on this thread (the inspector's, as `--cpu-prof` uses) around one piece of work, written to `path` when one is given. */
export async function profiled<T>(path: string | undefined, work: () => Promise<T>, intervalMicroseconds: number): Promise<T> {
  if (!path) return work();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalMicroseconds });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(path, JSON.stringify(profile));
    session.disconnect();
  }
}

/** CPU milliseconds this process has used (all threads). */
export function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** The median, to a tenth of a millisecond. */
export function median(list: number[]): number {
  return Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]! * 10) / 10;
}

/** The smallest and the largest, rounded: `41-53`. */
export function range(list: number[]): string {
  return `${Math.round(Math.min(...list))}-${Math.round(Math.max(...list))}`;
}
