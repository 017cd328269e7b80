import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distIsStale } from '../global-setup.js';
import { makeTempDir, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// The harness the CLI tests stand on: a stale dist/ is rebuilt, and a CLI run that hangs is killed.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

describe('the global set-up', () => {
  it('calls dist/ stale when a source is newer than every built file, and fresh after a build', async () => {
    await writeFiles(temp.path, { 'src/a.ts': 'export {};', 'dist/a.js': 'export {};', 'dist/bundle/hldp.js': 'export {};', 'build/bundle.js': '', 'tsconfig.json': '{}', 'tsconfig.build.json': '{}' });
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    for (const file of ['tsconfig.json', 'tsconfig.build.json', 'build/bundle.js']) await utimes(join(temp.path, file), at(0), at(0));
    await utimes(join(temp.path, 'dist/a.js'), at(10), at(10));
    await utimes(join(temp.path, 'dist/bundle/hldp.js'), at(10), at(10));
    await utimes(join(temp.path, 'src/a.ts'), at(20), at(20));
    expect(distIsStale(temp.path)).toBe(true);
    await utimes(join(temp.path, 'dist/a.js'), at(30), at(30));
    await utimes(join(temp.path, 'dist/bundle/hldp.js'), at(30), at(30));
    expect(distIsStale(temp.path)).toBe(false);
  });

  it('calls dist/ stale when tsc ran but the CLI was not bundled again, or the bundler changed', async () => {
    await writeFiles(temp.path, { 'src/a.ts': 'export {};', 'dist/a.js': 'export {};', 'dist/bundle/hldp.js': 'export {};', 'build/bundle.js': '', 'tsconfig.json': '{}', 'tsconfig.build.json': '{}' });
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    for (const file of ['tsconfig.json', 'tsconfig.build.json', 'build/bundle.js', 'dist/bundle/hldp.js']) await utimes(join(temp.path, file), at(0), at(0));
    await utimes(join(temp.path, 'src/a.ts'), at(10), at(10));
    await utimes(join(temp.path, 'dist/a.js'), at(20), at(20));
    expect(distIsStale(temp.path)).toBe(true);
    await utimes(join(temp.path, 'dist/bundle/hldp.js'), at(30), at(30));
    expect(distIsStale(temp.path)).toBe(false);
    await utimes(join(temp.path, 'build/bundle.js'), at(40), at(40));
    expect(distIsStale(temp.path)).toBe(true);
  });

  it('leaves this checkout with a dist/ as new as its sources', () => {
    expect(distIsStale()).toBe(false);
  });
});

describe('runCli', () => {
  it('kills a run that outlives its timeout, so no server is left listening', async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
    const run = await runCli(['serve', '--port', '0'], { env, timeoutMs: 3000 });
    expect(run.stderr).toMatch(/\[runCli: killed after 3000 ms\]/);
    expect(run.pid).toBeGreaterThan(0);
    expect(() => process.kill(run.pid!, 0)).toThrow(/ESRCH/);
  });
});
