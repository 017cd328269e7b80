import { execFile } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, track, type CliRun } from '../helpers/run-cli.js';

// more than two of the 500-entry slices a cold scan appends to its cache file at once
const TOOLS = 1100;

// `hldp scan --json` as a real process whose files may grow to `fileSizeLimit` bytes at most (RLIMIT_FSIZE, as a
// full disk would cut them): the bytes up to the limit are written, the write after fails with EFBIG. Node ignores
// SIGXFSZ. stdout is a pipe, which the limit does not cover.
function scanJson(repo: string, cacheDir: string, fileSizeLimit?: number): Promise<CliRun> {
  const command = fileSizeLimit === undefined ? [process.execPath, HLDP_BIN] : ['prlimit', `--fsize=${fileSizeLimit}`, process.execPath, HLDP_BIN];
  return new Promise((resolve) => {
    const child = execFile(command[0]!, [...command.slice(1), 'scan', '--json', '--repo', repo], { env: { ...process.env, HLDP_CACHE_DIR: cacheDir }, maxBuffer: 64 * 1024 * 1024, timeout: 50_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    track(child);
  });
}

// every file under the cache folder's index folders, whole or not
async function cacheFiles(cacheDir: string): Promise<string[]> {
  try {
    return (await readdir(cacheDir, { recursive: true })).filter((path) => /(^|\/)index\/./.test(path)).sort();
  } catch {
    return [];
  }
}

function withoutScanTime(run: CliRun): unknown {
  expect(run.code, run.stderr).toBe(0);
  const { scanned_at: _scannedAt, ...rest } = JSON.parse(run.stdout) as Record<string, unknown>;
  return rest;
}

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
// what a scan without a cache answers
let uncached: unknown;
// where a whole cache file of this scan ends, and where its stored index begins (its trailer says)
let fileSize: number;
let indexStart: number;

beforeAll(async () => {
  temp = await makeTempDir();
  repo = await initRepository(join(temp.path, 'repo'));
  const files: Record<string, string> = {
    'tools/broken/TOOL.hdlp': 'name: broken\n  bad: [\n',
    'tools/late/TOOL.hdlp': makeToolYaml('late', { created: 'someday' }),
    'toolsets/some/TOOLSET.hdlp': 'name: some\ndescription: some tools\ntools: [tool-0001, missing]\nauthor: a\nwhy: w\n',
  };
  for (let number = 1; number <= TOOLS; number++) files[`tools/tool-${String(number).padStart(4, '0')}/TOOL.hdlp`] = makeToolYaml(`tool-${String(number).padStart(4, '0')}`);
  await commitFiles(repo, files);
  // a cache folder that cannot be made: the scan is held in memory and nothing is written
  await writeFile(join(temp.path, 'not-a-folder'), '');
  uncached = withoutScanTime(await scanJson(repo, join(temp.path, 'not-a-folder')));
  const whole = join(temp.path, 'whole');
  expect(withoutScanTime(await scanJson(repo, whole))).toEqual(uncached);
  const [file] = await cacheFiles(whole);
  const text = await readFile(join(whole, file!), 'latin1');
  fileSize = (await stat(join(whole, file!))).size;
  indexStart = Number.parseInt(text.slice(-17), 16);
}, 60_000);
afterAll(() => temp.cleanup());

describe('hldp scan', () => {
  describe('when the cache file cannot be written whole (a file size limit, as a full disk)', () => {
    it.each([
      ['in the first slice of entries', () => 2000],
      ['between slices of entries', () => Math.floor(indexStart / 2)],
      ['in the stored index, the last write (short, without an error)', () => indexStart + 100],
      ['in the trailer', () => fileSize - 5],
    ])('cut %s: answers every tool and broken definition a scan without a cache does, leaves no torn file, and the next start scans whole', async (_where, cutAt) => {
      const limit = cutAt();
      expect(limit).toBeGreaterThan(0);
      expect(limit).toBeLessThan(fileSize);
      const cacheDir = join(temp.path, `cut-${limit}`);
      const cut = await scanJson(repo, cacheDir, limit);
      expect(withoutScanTime(cut)).toEqual(uncached);
      expect(cut.stderr).toMatch(/index cache not written: Error: EFBIG/);
      // neither the cold scan's file nor the in-memory scan's own write is left, torn, for the next start to read
      expect(await cacheFiles(cacheDir)).toEqual([]);
      const next = await scanJson(repo, cacheDir);
      expect(withoutScanTime(next)).toEqual(uncached);
      expect(next.stderr).not.toMatch(/index cache not written/);
      const [written, ...others] = await cacheFiles(cacheDir);
      expect(others).toEqual([]);
      expect((await stat(join(cacheDir, written!))).size).toBe(fileSize);
    }, 60_000);
  });

  it('reports every tool and broken definition (the repository this file scans)', () => {
    const index = uncached as { tools: unknown[]; errors: Array<{ file: string; code: string }>; toolsets: unknown[] };
    expect(index.tools).toHaveLength(TOOLS);
    expect(index.errors).toEqual(expect.arrayContaining([
      expect.objectContaining({ file: 'tools/broken/TOOL.hdlp', code: 'YAML_SYNTAX' }),
      expect.objectContaining({ file: 'tools/late/TOOL.hdlp' }),
      expect.objectContaining({ file: 'toolsets/some/TOOLSET.hdlp', code: 'UNKNOWN_MEMBER' }),
    ]));
  });
});
