import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// bin/hldp.js runs the CLI's CommonJS bundle through vm.Script with V8's code cache for it (issue #18: compiling the
// bundle was ~13 % of a start's CPU). A cache is code: one made for another bundle, torn, corrupt or refused by V8 must
// never be run, only replaced; a folder the process may not write only goes without. HLDP_CODE_CACHE_DIR puts the
// cache in the test's own folder (it is dist/bundle/code-cache/ otherwise). V8 checks only the source's length, so a
// cache is trusted exactly as far as its folder's owner (review Z2, Z2-1): one another user could write is never run.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = (JSON.parse(readFileSync(join(ROOT, 'dist/bundle/commonjs.json'), 'utf8')) as { file: string }).file;
const HEADER = Buffer.from(`hldp code cache ${BUNDLE} ${createHash('sha256').update(readFileSync(join(ROOT, 'dist/bundle', BUNDLE))).digest('hex')}\n`);
const FORGE = fileURLToPath(new URL('../fixtures/code-cache/forge-code-cache.cjs', import.meta.url));
// the tests of another user's files need root to make them (CI runs as root): elsewhere they fail, never skip
const ROOT_USER = process.getuid?.() === 0;
const NOBODY = 65534;
const execFileAsync = promisify(execFile);

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

const env = (cacheDir: string) => ({ HLDP_CODE_CACHE_DIR: cacheDir, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' });
const cacheFolder = () => join(temp.path, 'code-cache');
/** The native registry's tools as `hldp list --json` prints them: what every run below must print, cache or none. */
async function listed(cacheDir = cacheFolder()): Promise<string[]> {
  const run = await runCli(['list', '--json'], { env: env(cacheDir) });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort();
}
const cacheFile = () => {
  const names = readdirSync(cacheFolder()).filter((name) => name.startsWith(`${BUNDLE}.list.`));
  expect(names).toHaveLength(1);
  return join(cacheFolder(), names[0]!);
};
/** Whether `file` is a whole cache this bundle would run: its header names the bundle, its CRC-32 holds. */
function wellFormed(file: string): boolean {
  const bytes = readFileSync(file);
  return bytes.subarray(0, HEADER.length).equals(HEADER) && bytes.readUInt32BE(HEADER.length) === crc32(bytes.subarray(HEADER.length + 4));
}
/** The file a `list` run reads its cache from, in `folder`. */
const listCache = (folder: string) => join(folder, `${BUNDLE}.list.${process.version}-${process.arch}.v8`);
const marker = () => join(temp.path, 'forged-ran');
/** Writes at `file` a cache of other code of the bundle's length (review Z2's forge-cache.cjs), which V8 accepts. */
function forge(file: string): void {
  execFileSync(process.execPath, [FORGE, join(ROOT, 'dist/bundle'), file, marker()]);
}
/** `hldp list --json` with the cache in `cacheDir`: it must list the native tools, and the forged code must not have run. */
async function listsWithoutForgery(cacheDir: string, tools: string[]): Promise<string> {
  const run = await runCli(['list', '--json'], { env: env(cacheDir) });
  expect(run.stdout).not.toContain('forged cache ran');
  expect(existsSync(marker())).toBe(false);
  expect(run.code).toBe(0);
  expect((JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort()).toEqual(tools);
  return run.stderr;
}

describe('the code cache of the CLI bundle', () => {
  it('is written by a first run, named after its bundle and command, and used as it is by the next', async () => {
    const tools = await listed();
    expect(tools.length).toBeGreaterThan(0);
    const file = cacheFile();
    expect(wellFormed(file)).toBe(true);
    const written = statSync(file).mtimeMs;
    expect(await listed()).toEqual(tools);
    // taken as it was, not replaced
    expect(statSync(file).mtimeMs).toBe(written);
    expect(readdirSync(cacheFolder()).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('ignores a corrupt cache and writes a good one in its place', async () => {
    const tools = await listed();
    const file = cacheFile();
    const bytes = readFileSync(file);
    // bytes of the code flipped, the header left whole
    for (let at = bytes.length - 4096; at < bytes.length; at += 7) bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(file, bytes);
    expect(wellFormed(file)).toBe(false);
    expect(await listed()).toEqual(tools);
    expect(wellFormed(file)).toBe(true);
  });

  it('never runs a cache made for another bundle, nor one V8 refuses, and replaces it', async () => {
    const tools = await listed();
    const file = cacheFile();
    const data = readFileSync(file).subarray(HEADER.length + 4);
    // an older build's cache under this build's name: its header names the other bundle
    const other = Buffer.from('hldp code cache hldp-OLDERBUILD.cjs\n');
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32(data));
    writeFileSync(file, Buffer.concat([other, checksum, data]));
    expect(await listed()).toEqual(tools);
    expect(wellFormed(file)).toBe(true);
    // well formed to our checks, not V8's: bytes that are no code cache at all, with a right CRC-32
    const garbage = Buffer.alloc(data.length, 0x5a);
    checksum.writeUInt32BE(crc32(garbage));
    writeFileSync(file, Buffer.concat([HEADER, checksum, garbage]));
    expect(await listed()).toEqual(tools);
    expect(wellFormed(file)).toBe(true);
    expect(readFileSync(file).subarray(HEADER.length + 4).equals(garbage)).toBe(false);
  });

  it('starts and answers where the cache cannot be written', async () => {
    const file = join(temp.path, 'a-file');
    writeFileSync(file, 'not a folder');
    // its folder would be below a file: neither made nor written
    expect(await listed(join(file, 'code-cache'))).toEqual(await listed());
    expect(existsSync(join(file, 'code-cache'))).toBe(false);
  });

  it('is written only this user may read or write: the file 0600, a folder it makes 0700', async () => {
    await listed();
    expect(statSync(cacheFile()).mode & 0o777).toBe(0o600);
    expect(statSync(cacheFolder()).mode & 0o777).toBe(0o700);
  });
});

// Review Z2, Z2-1: a cache of other code of the bundle's length is run by V8 as the bundle's; so whoever may write it runs
// code as the next user to start hldp. Each of these forged caches, run on main, printed "forged cache ran".
describe('a code cache another user could have written', () => {
  let tools: string[];
  beforeEach(async () => {
    tools = await listed(join(temp.path, 'unused-code-cache'));
  });

  it("is never run from a folder of another user's named by HLDP_CODE_CACHE_DIR, and that folder is not written", async () => {
    expect(ROOT_USER, 'needs root to give a folder to another user (CI runs as root)').toBe(true);
    const folder = join(temp.path, 'shared');
    mkdirSync(folder, { mode: 0o755 });
    forge(listCache(folder));
    chownSync(listCache(folder), NOBODY, NOBODY);
    chownSync(folder, NOBODY, NOBODY);
    const forged = readFileSync(listCache(folder));
    const stderr = await listsWithoutForgery(folder, tools);
    // said once, as the folder was named on purpose
    expect(stderr).toMatch(/^hldp: HLDP_CODE_CACHE_DIR .*shared.* running without a code cache\n$/);
    expect(readFileSync(listCache(folder)).equals(forged)).toBe(true);
    expect(readdirSync(folder)).toEqual([listCache(folder).slice(folder.length + 1)]);
  });

  it("is never run when the file is another user's, in this user's folder, and is replaced by one of this user's", async () => {
    expect(ROOT_USER, 'needs root to give a file to another user (CI runs as root)').toBe(true);
    mkdirSync(cacheFolder(), { mode: 0o700 });
    forge(listCache(cacheFolder()));
    chownSync(listCache(cacheFolder()), NOBODY, NOBODY);
    expect(await listsWithoutForgery(cacheFolder(), tools)).toBe('');
    expect(statSync(listCache(cacheFolder())).uid).toBe(process.geteuid!());
    expect(wellFormed(listCache(cacheFolder()))).toBe(true);
  });

  it('is never run from a folder others may write (0777, 0775), even this user\'s own', async () => {
    for (const mode of [0o777, 0o775]) {
      const folder = join(temp.path, `open-${mode.toString(8)}`);
      mkdirSync(folder);
      chmodSync(folder, mode);
      forge(listCache(folder));
      const stderr = await listsWithoutForgery(folder, tools);
      expect(stderr).toMatch(/^hldp: HLDP_CODE_CACHE_DIR .* running without a code cache\n$/);
    }
  });

  it('says what is wrong with a folder named by HLDP_CODE_CACHE_DIR, and what to do (review userZ2, U3)', async () => {
    const open = join(temp.path, 'open');
    mkdirSync(open);
    chmodSync(open, 0o775);
    expect(await listsWithoutForgery(open, tools)).toBe(`hldp: HLDP_CODE_CACHE_DIR ${JSON.stringify(open)} is writable by group (mode 0775): chmod 700 ${JSON.stringify(open)}; running without a code cache\n`);
    const real = join(temp.path, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(temp.path, 'link');
    symlinkSync(real, link);
    expect(await listsWithoutForgery(link, tools)).toBe(`hldp: HLDP_CODE_CACHE_DIR ${JSON.stringify(link)} is a symbolic link (to ${JSON.stringify(real)}), which is not followed: point HLDP_CODE_CACHE_DIR at the folder itself; running without a code cache\n`);
    expect(readdirSync(real)).toEqual([]);
    expect(ROOT_USER, 'needs root to give a folder to another user (CI runs as root)').toBe(true);
    const theirs = join(temp.path, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, NOBODY, NOBODY);
    expect(await listsWithoutForgery(theirs, tools)).toMatch(new RegExp(`^hldp: HLDP_CODE_CACHE_DIR ".*theirs" is owned by uid ${NOBODY}, not by this user \\(uid 0\\): chown 0 ".*theirs", or point HLDP_CODE_CACHE_DIR at a folder of this user's; running without a code cache\n$`));
  });

  it('is never run through a symbolic link at the cache file, which is replaced, not followed', async () => {
    mkdirSync(cacheFolder(), { mode: 0o700 });
    const elsewhere = join(temp.path, 'elsewhere.v8');
    forge(elsewhere);
    const forged = readFileSync(elsewhere);
    symlinkSync(elsewhere, listCache(cacheFolder()));
    expect(await listsWithoutForgery(cacheFolder(), tools)).toBe('');
    expect(lstatSync(listCache(cacheFolder())).isSymbolicLink()).toBe(false);
    expect(wellFormed(listCache(cacheFolder()))).toBe(true);
    expect(readFileSync(elsewhere).equals(forged)).toBe(true);
  });

  it('is written past symbolic links planted at the names a writer used to take (<cache>.<pid>.tmp): no file is overwritten through one', async () => {
    mkdirSync(cacheFolder(), { mode: 0o700 });
    const victim = join(temp.path, 'victim');
    writeFileSync(victim, 'a file of root only\n', { mode: 0o600 });
    // the next few thousand pids, as review Z2's proof of concept planted them
    const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
    const planted = new Set<number>();
    for (let step = 1; step <= 4000; step += 1) {
      const pid = last + step <= max ? last + step : last + step - max + 300;
      planted.add(pid);
      symlinkSync(victim, `${listCache(cacheFolder())}.${pid}.tmp`);
    }
    const run = await runCli(['list', '--json'], { env: env(cacheFolder()) });
    expect(run.code).toBe(0);
    // the run's pid was one of those planted: the test did put a link where the old writer wrote
    expect(planted.has(run.pid!)).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('a file of root only\n');
    expect(wellFormed(listCache(cacheFolder()))).toBe(true);
    expect(lstatSync(listCache(cacheFolder())).isSymbolicLink()).toBe(false);
  });
});

describe('the folder HLDP_CODE_CACHE_DIR names', () => {
  it("is among the gateway's own folders, which the sandbox makes read-only for tools (as dist/, which holds the default one)", async () => {
    const folder = join(temp.path, 'code-cache');
    const script = `const { OWN_FOLDERS } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/config/package-root.js')).href)}); process.stdout.write(JSON.stringify(OWN_FOLDERS));`;
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, HLDP_CODE_CACHE_DIR: folder } });
    expect(JSON.parse(stdout) as string[]).toContain(folder);
  });
});

describe('the commands a code cache is kept for (review userZ2, U5)', () => {
  it('writes none for a misspelt command, which would leave ~0.77 MB behind each', async () => {
    for (const word of ['valdate', 'xyz']) {
      const run = await runCli([word], { env: env(cacheFolder()) });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`unknown command '${word}'`);
    }
    expect(existsSync(cacheFolder()) ? readdirSync(cacheFolder()) : []).toEqual([]);
    // a known command and --version still write theirs
    expect((await runCli(['--version'], { env: env(cacheFolder()) })).code).toBe(0);
    await listed();
    expect(readdirSync(cacheFolder()).map((name) => name.split('.')[2]).sort()).toEqual(['list', 'other']);
  });

  it("are the CLI's commands, as src/cli/commands/index.ts lists them", async () => {
    const { COMMANDS } = (await import(pathToFileURL(join(ROOT, 'dist/cli/commands/index.js')).href)) as { COMMANDS: Array<{ name: string }> };
    const listed = /const COMMAND_NAMES = (\[[^\]]*\])/.exec(readFileSync(join(ROOT, 'bin/hldp.js'), 'utf8'))?.[1];
    expect(JSON.parse(listed!.replaceAll("'", '"'))).toEqual(COMMANDS.map((command) => command.name));
  });
});

describe("a bundle another user owns (a package installed by root, run by a user; review userZ2, U4)", () => {
  it('is run without a code cache, and says so once HLDP_CODE_CACHE_DIR is set, which it does not use', async () => {
    expect(ROOT_USER, 'needs root to give the bundle to another user (CI runs as root)').toBe(true);
    const copy = join(temp.path, 'package');
    for (const part of ['package.json', 'bin', 'schemas', 'native-repo', 'assets']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true, filter: (source) => !source.startsWith(join(ROOT, 'dist/bundle/code-cache')) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    chownSync(join(copy, 'dist/bundle', BUNDLE), NOBODY, NOBODY);
    const folder = join(temp.path, 'mine');
    const run = await execFileAsync(process.execPath, [join(copy, 'bin/hldp.js'), 'list', '--json'], { env: { ...process.env, ...env(folder) } });
    expect(JSON.parse(run.stdout)).toHaveProperty('tools');
    expect(run.stderr).toBe(`hldp: HLDP_CODE_CACHE_DIR is not used: the bundle ${join(copy, 'dist/bundle', BUNDLE)} is owned by uid ${NOBODY}, not by this user (uid 0), and a code cache is trusted only as far as the bundle: running without a code cache\n`);
    expect(existsSync(folder)).toBe(false);
    // without the variable, nothing is said
    const quiet = await execFileAsync(process.execPath, [join(copy, 'bin/hldp.js'), 'list', '--json'], { env: { ...process.env, ...env(folder), HLDP_CODE_CACHE_DIR: '' } });
    expect(quiet.stderr).toBe('');
  });
});

describe('a rebuild of the bundle', () => {
  it('empties dist/bundle/code-cache/: a cache written meanwhile, forged or not, is not kept', async () => {
    // a copy of the package (tsc's dist/ copied, node_modules linked), rebuilt by the real build/bundle.js
    const copy = join(temp.path, 'package');
    for (const part of ['package.json', 'bin', 'build', 'schemas', 'native-repo', 'assets']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true, filter: (source) => !source.startsWith(join(ROOT, 'dist/bundle/code-cache')) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const folder = join(copy, 'dist/bundle/code-cache');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // named after the bundle the rebuild makes again (the same source): such a cache outlived a rebuild on main
    forge(listCache(folder));
    await execFileAsync(process.execPath, ['build/bundle.js'], { cwd: copy });
    expect(existsSync(listCache(folder))).toBe(false);
    // the copy's own CLI, with its default folder
    const run = await execFileAsync(process.execPath, [join(copy, 'bin/hldp.js'), 'list', '--json'], { env: { ...process.env, ...env(folder), HLDP_CODE_CACHE_DIR: '' } });
    expect(run.stdout).not.toContain('forged cache ran');
    expect(JSON.parse(run.stdout)).toHaveProperty('tools');
    expect(existsSync(marker())).toBe(false);
  });
});
