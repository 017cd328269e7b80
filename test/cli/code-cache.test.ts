import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// bin/hldp.js runs the CLI's CommonJS bundle through vm.Script with V8's code cache for it (issue #18: compiling the
// bundle was ~13 % of a start's CPU). A cache is code: one made for another bundle, torn, corrupt or refused by V8 must
// never be run, only replaced; a folder the process may not write only goes without. HLDP_CODE_CACHE_DIR puts the
// cache in the test's own folder (it is dist/bundle/code-cache/ otherwise).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = (JSON.parse(readFileSync(join(ROOT, 'dist/bundle/commonjs.json'), 'utf8')) as { file: string }).file;

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
  const header = Buffer.from(`hldp code cache ${BUNDLE}\n`);
  return bytes.subarray(0, header.length).equals(header) && bytes.readUInt32BE(header.length) === crc32(bytes.subarray(header.length + 4));
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
    const data = readFileSync(file).subarray(Buffer.byteLength(`hldp code cache ${BUNDLE}\n`) + 4);
    // an older build's cache under this build's name: its header names the other bundle
    const other = Buffer.from('hldp code cache hldp-OLDERBUILD.cjs\n');
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32(data));
    writeFileSync(file, Buffer.concat([other, checksum, data]));
    expect(await listed()).toEqual(tools);
    expect(wellFormed(file)).toBe(true);
    // well formed to our checks, not V8's: bytes that are no code cache at all, with a right CRC-32
    const garbage = Buffer.alloc(data.length, 0x5a);
    const header = Buffer.from(`hldp code cache ${BUNDLE}\n`);
    checksum.writeUInt32BE(crc32(garbage));
    writeFileSync(file, Buffer.concat([header, checksum, garbage]));
    expect(await listed()).toEqual(tools);
    expect(wellFormed(file)).toBe(true);
    expect(readFileSync(file).subarray(header.length + 4).equals(garbage)).toBe(false);
  });

  it('starts and answers where the cache cannot be written', async () => {
    const file = join(temp.path, 'a-file');
    writeFileSync(file, 'not a folder');
    // its folder would be below a file: neither made nor written
    expect(await listed(join(file, 'code-cache'))).toEqual(await listed());
    expect(existsSync(join(file, 'code-cache'))).toBe(false);
  });
});
