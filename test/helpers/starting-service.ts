import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { HLDP_BIN, track } from './run-cli.js';
import type { ServiceHome } from './serve-process.js';

/** A `hldp serve` or `hldp mcp` process under way, not waited for: what a signal during its start is sent to. */
export interface StartingService {
  child: ChildProcess;
  /** its exit code and signal */
  exit: Promise<[number | null, string | null]>;
  stdout(): string;
  stderr(): string;
  /** resolves once its stderr matches `pattern`, it exited, or a minute passed */
  said(pattern: RegExp): Promise<void>;
  /** its exit, or 'still starting' once `ms` have passed without one (a bound far from what held it) */
  exitWithin(ms: number): Promise<[number | null, string | null] | 'still starting'>;
}

/** `hldp ARGS` with the home's environment (and `extraEnv`), its stdin held open as an MCP client's is. */
export function startService(home: ServiceHome, args: string[], extraEnv: NodeJS.ProcessEnv = {}): StartingService {
  const child = track(spawn(process.execPath, [HLDP_BIN, ...args], { env: { ...process.env, ...home.env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  return {
    child,
    exit,
    stdout: () => stdout,
    stderr: () => stderr,
    said: async (pattern) => {
      for (let i = 0; i < 1200 && !pattern.test(stderr) && child.exitCode === null && child.signalCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    exitWithin: (ms) => Promise.race([exit, new Promise<'still starting'>((resolve) => setTimeout(() => resolve('still starting'), ms).unref())]),
  };
}

/** A later start of `args` says `serving` and stops at SIGTERM, exit 0: nothing an earlier start left (a lock, a half-made clone) holds it. */
export async function servesAgain(home: ServiceHome, args: string[], serving: RegExp): Promise<void> {
  const next = startService(home, args);
  await next.said(serving);
  next.child.kill('SIGTERM');
  expect(await next.exit, next.stderr()).toEqual([0, null]);
  expect(next.stderr()).toMatch(serving);
}

/** A sandbox probe held at its bubblewrap: a service's start after its first scan, until the test lets it go. */
export interface HeldProbe {
  /** HLDP_HOST_PATH and HLDP_SANDBOX for the service */
  env: NodeJS.ProcessEnv;
  /** resolves once the probe runs the held bubblewrap: the service's first scan begins beside it */
  probing(): Promise<void>;
  /** resolves once the probe runs the held bubblewrap, and the service's first scan is over (its store opened in `dataDir`) */
  reached(dataDir: string): Promise<void>;
  /** lets the probe go on: the bubblewrap fails (the sandbox is then off), and the start goes on */
  release(): Promise<void>;
}

/**
 * A `bwrap` in `folder/bin`, first on HLDP_HOST_PATH, that waits (at most a minute, and no longer than `folder` is there) for the test's word, then fails as a
 * host without user namespaces makes it fail: a start held in its sandbox probe, which it awaits after its first scan
 * and its store's opening.
 */
export async function heldProbe(folder: string): Promise<HeldProbe> {
  const bin = join(folder, 'bin');
  await mkdir(bin, { recursive: true });
  const probing = join(folder, 'probing');
  const go = join(folder, 'go');
  // the test's folder removed (its end) lets it go too
  const script = ['#!/bin/sh', `touch '${probing}'`, 'i=0', `while [ ! -e '${go}' ] && [ -e '${probing}' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done`, 'echo "bwrap: No permissions to create new namespace" >&2', 'exit 1', ''].join('\n');
  await writeFile(join(bin, 'bwrap'), script);
  await chmod(join(bin, 'bwrap'), 0o755);
  return {
    env: { HLDP_HOST_PATH: `${bin}:${process.env.PATH}`, HLDP_SANDBOX: 'auto' },
    probing: async () => {
      for (let i = 0; i < 1200 && !existsSync(probing); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!existsSync(probing)) throw new Error('the start did not reach the held sandbox probe within a minute');
    },
    reached: async (dataDir) => {
      const there = (): boolean => existsSync(probing) && existsSync(join(dataDir, 'receipts.db'));
      for (let i = 0; i < 1200 && !there(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!there()) throw new Error('the start did not reach the held sandbox probe with its store opened within a minute');
    },
    release: () => writeFile(go, ''),
  };
}
