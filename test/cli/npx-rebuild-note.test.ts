// Review N, N9: the first `npx hldp …` after a source change took a minute or more and said nothing — npx installs the
// package from its folder, which runs the prepare script (tsc, then the bundle), and npm hides that script's output.
import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

describe('a rebuild npx runs', () => {
  it('is announced when the prepare script starts under npm exec, and leaves a record (nothing under npm install)', async () => {
    const script = join(ROOT, 'build/announce-build.js');
    await run(process.execPath, [script], { cwd: temp.path, env: { ...process.env, npm_command: 'install' } });
    await expect(readFile(join(temp.path, 'dist/rebuilt-by-npx'), 'utf8')).rejects.toThrow(/ENOENT/);
    await run(process.execPath, [script], { cwd: temp.path, env: { ...process.env, npm_command: 'exec' } });
    expect(await readFile(join(temp.path, 'dist/rebuilt-by-npx'), 'utf8')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts['prepare']).toBe('node build/prepare.js');
    expect(await readFile(join(ROOT, 'build/prepare.js'), 'utf8')).toContain("await import('./announce-build.js');");
  });

  it('is not run by the first npx hldp of a fresh clone whose npm ci built dist/ (a real npx, a cache of its own)', async () => {
    // the README's main job is `npm ci && npx hldp serve`: npx installs the package from its folder and runs its prepare
    // script, which built everything a second time (a minute or more) before the server started
    const { clone, env } = await makeClone();
    const bundle = join(clone, 'dist/bundle/hldp.js');
    const before = (await stat(bundle)).mtimeMs;
    const listing = await run('npx', ['hldp', 'list', '--json'], { cwd: clone, env, maxBuffer: 16 * 1024 * 1024 });
    expect(listing.stderr).not.toContain('npx rebuilt');
    expect(listing.stderr).not.toContain('changed since the last build');
    expect((JSON.parse(listing.stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    expect((await stat(bundle)).mtimeMs).toBe(before);
    await expect(readFile(join(clone, 'dist/rebuilt-by-npx'), 'utf8')).rejects.toThrow(/ENOENT/);
  }, 240_000);

  it('is run by the next npx hldp after a change to src/, and node bin/hldp.js says its build is older (review R, R19)', async () => {
    // npx installs the package from its folder once per npm cache (a link in its _npx folder) and runs prepare only
    // then: every later `npx hldp` after a change ran the old dist/ without a word, the quick start's own first npx
    // having made that link
    const { clone, env } = await makeClone();
    const first = await run('npx', ['hldp', 'list'], { cwd: clone, env, maxBuffer: 16 * 1024 * 1024 });
    expect(first.stdout).toMatch(/^NAME +EXECUTOR/);
    const source = join(clone, 'src/cli/commands/list-command.ts');
    await writeFile(source, (await readFile(source, 'utf8')).replace("${'NAME'.padEnd(width)}", "${'TOOLNAME'.padEnd(width)}"));

    const direct = await run(process.execPath, [join(clone, 'bin/hldp.js'), 'list'], { cwd: clone, env, maxBuffer: 16 * 1024 * 1024 });
    expect(direct.stdout).toMatch(/^NAME +EXECUTOR/);
    expect(direct.stderr).toMatch(/^hldp: src\/cli\/commands\/list-command\.ts changed since the last build \(\d{4}-\d\d-\d\d [\d:]+ UTC\): running that older build; run `npm run build` to run your change\n/);

    const bundle = join(clone, 'dist/bundle/hldp.js');
    const before = (await stat(bundle)).mtimeMs;
    const second = await run('npx', ['hldp', 'list'], { cwd: clone, env, maxBuffer: 16 * 1024 * 1024 });
    expect(second.stdout).toMatch(/^TOOLNAME +EXECUTOR/);
    expect(second.stderr).toMatch(/^hldp: src\/cli\/commands\/list-command\.ts changed since the last build \([^)]+\): building dist\/ again first/);
    expect(second.stderr).toMatch(/hldp: built in \d+ s; running your change\n/);
    expect((await stat(bundle)).mtimeMs).toBeGreaterThan(before);

    const third = await run('npx', ['hldp', 'list', '--json'], { cwd: clone, env, maxBuffer: 16 * 1024 * 1024 });
    expect(third.stderr).not.toContain('changed since the last build');
    expect((JSON.parse(third.stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  }, 900_000);

  it('is said once on stderr by the first hldp run after it', async () => {
    // a package folder of its own: this checkout's bin/hldp.js, its built bundle, and the record the prepare script left
    await mkdir(join(temp.path, 'bin'));
    await mkdir(join(temp.path, 'dist'));
    await copyFile(join(ROOT, 'bin/hldp.js'), join(temp.path, 'bin/hldp.js'));
    await symlink(join(ROOT, 'dist/bundle'), join(temp.path, 'dist/bundle'));
    await writeFile(join(temp.path, 'dist/rebuilt-by-npx'), '2026-12-04T00:00:00.000Z\n');
    const env = { ...process.env, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') };
    const first = await run(process.execPath, [join(temp.path, 'bin/hldp.js'), 'list', '--json'], { env });
    expect(first.stderr).toMatch(/^hldp: npx rebuilt dist\/ before this run \(started 2026-12-04T00:00:00.000Z: src\/ had changed since the last build/);
    expect(() => JSON.parse(first.stdout)).not.toThrow();
    const second = await run(process.execPath, [join(temp.path, 'bin/hldp.js'), 'list', '--json'], { env });
    expect(second.stderr).not.toContain('npx rebuilt');
  });
});

// A fresh clone as `npm ci` leaves it (this checkout's files, its node_modules linked, dist/ built after the sources),
// with an npm cache of its own so that npx installs the package from it anew, and none of npm's variables (the test's
// own runner may be npx: npm_command=exec).
async function makeClone(): Promise<{ clone: string; env: NodeJS.ProcessEnv }> {
  const clone = join(temp.path, 'clone');
  const { stdout: listed } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const file of listed.split('\0').filter((name) => name !== '' && name !== 'node_modules' && !name.startsWith('test/') && !name.startsWith('bench/'))) {
    await mkdir(dirname(join(clone, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(clone, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // a file deleted in the working tree
    });
  }
  await symlink(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  await cp(join(ROOT, 'dist'), join(clone, 'dist'), { recursive: true, filter: (path) => !path.includes('/bundle/running') });
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
  Object.assign(env, { npm_config_cache: join(temp.path, 'npm-cache'), npm_config_update_notifier: 'false', HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') });
  return { clone, env };
}
