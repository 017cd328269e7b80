import { spawnSync } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { spawnService } from '../helpers/spawn-service.js';

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  temp = await makeTempDir('hldp-search-prune-');
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
});
afterEach(() => temp.cleanup());

describe('the search index kept on disk by hldp serve (a real process, the starter tools)', () => {
  it('removes the .tmp files a crashed writer left beside the index, and keeps one a running process is writing', async () => {
    // serve builds the search index before it listens, and keeps it in the cache
    const serve = async (): Promise<string> => {
      const started = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
      try {
        const response = await fetch(`${started.url}/v1/match`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ intent: 'read the file README.md' }) });
        expect(response.status).toBe(200);
        return JSON.stringify(await response.json());
      } finally {
        await started.stop();
      }
    };
    const first = await serve();
    const search = join(env.HLDP_CACHE_DIR!, 'search');
    const [kept] = (await readdir(search)).filter((name) => name.endsWith('.v8'));
    expect(kept).toBeDefined();
    // a process that crashed while writing: its pid runs no more, and the index file was never renamed into place
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const torn = `${kept}.${dead}.tmp`;
    const other = `${'0'.repeat(32)}.v8.${dead}.tmp`;
    // a writer still at work (this test's own process stands for it)
    const live = `${'1'.repeat(32)}.v8.${process.pid}.tmp`;
    for (const name of [torn, other, live]) await writeFile(join(search, name), 'half a file');
    await rm(join(search, kept!));
    expect(await serve()).toBe(first);
    expect((await readdir(search)).sort()).toEqual([kept!, live].sort());
  });
});
