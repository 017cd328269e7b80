// Review N, N9: the first `npx hldp …` after a source change took a minute or more and said nothing — npx installs the
// package from its folder, which runs the prepare script (tsc, then the bundle), and npm hides that script's output.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
    expect(manifest.scripts['prepare']).toMatch(/^node build\/announce-build\.js && /);
  });

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
