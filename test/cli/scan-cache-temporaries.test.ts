import { spawnSync } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// Review Z20, Z20-5: a scan's cache is written to `<commit>.json.<pid>.<n>.tmp` and renamed; a process killed with
// SIGKILL (an out-of-memory kill, a container's stop) never removed its temporary, and nothing else did (the prune
// looked at `*.json` only) — a restart loop left one per try, each as large as a cold scan. A scan now removes those
// of processes no longer alive, and keeps those of a live one (its write under way).

let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  temp = await makeTempDir('hldp-cache-temporaries-');
  await writeFiles(join(temp.path, 'repo'), { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
}, 60_000);
afterAll(() => temp?.cleanup());

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

describe("hldp scan and the cache's temporaries", () => {
  it('removes those of a process no longer alive and keeps those of a live one', { timeout: 120_000 }, async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn' };
    const scan = async (): Promise<void> => {
      const run = await runCli(['scan', '--repo', join(temp.path, 'repo')], { env, timeoutMs: 100_000 });
      expect(run.code, run.stderr).toBe(0);
    };
    await scan();
    const stored = (await filesUnder(join(temp.path, 'cache'))).find((path) => path.endsWith('.json') && path.includes('sources'));
    expect(stored).toBeDefined();
    // a process that has ended: its id is no one's now
    const ended = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    const dead = `${stored!}.${ended}.1.tmp`;
    const live = `${stored!}.${process.pid}.1.tmp`;
    for (const path of [dead, live]) await writeFile(path, 'half a scan');
    // a changed repository: the scan writes its cache again
    await writeFiles(join(temp.path, 'repo'), { 'tools/two/TOOL.hdlp': makeToolYaml('two') });
    await scan();
    const left = await filesUnder(join(temp.path, 'cache'));
    expect(left).not.toContain(dead);
    expect(left).toContain(live);
  });
});
