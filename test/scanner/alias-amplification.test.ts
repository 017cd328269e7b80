import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// review Z10-1: a 0.9 MB TOOL.hdlp whose one anchored description is reused by 99 parameters was valid, and ~100x its
// size once expanded: in the cold scan's parse thread (>= 20,000 files, or HLDP_SCAN_THREAD_FROM) V8 ended the whole
// process (exit 134, no cache written); on the main thread it cost 2.3 GB and ~90 s. The expanded text is bounded now
// (4x the file limit: 4 MiB), and such a file is refused as YAML_RESOURCE_LIMIT at its first alias, the others served.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

/** The reviewer's file (`/tmp/review-z10/alias-amp.mjs … 900000 é 99`): a valid shell tool but for its size once expanded. */
function bomb(uses: number, bytes = 900_000): string {
  const big = 'é'.repeat(bytes / 2);
  const params = Array.from({ length: uses }, (_, i) => `  p${i}: { type: string, description: *big }`).join('\n');
  return [
    'name: bomb', 'display: Bomb', 'intent: echo a word back', 'method: echo', 'executor: shell', 'shell: { argv: [echo, hi] }',
    'params_schema:', `  x: { type: string, description: &big "${big}" }`, params,
    'author: someone', 'created: 2026-12-01', 'why: amplification probe', '',
  ].join('\n');
}

describe('a definition that grows past the bound through its aliases', () => {
  it('is refused at its first alias by hldp scan, in the parse thread and on the main thread, the other tools served', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    // 4 uses of 0.9 MB stay under 4 MiB of text (nothing under the bound is refused); 99 go far past it
    await commitFiles(repo, { 'tools/bomb/TOOL.hdlp': bomb(99), 'tools/fine/TOOL.hdlp': bomb(3).replace('name: bomb', 'name: fine'), 'tools/hello/TOOL.hdlp': makeToolYaml('hello') });
    for (const threadFrom of ['1', '100000']) {
      const run = await runCli(['scan', '--repo', repo, '--json'], { env: { HLDP_CACHE_DIR: join(temp.path, `cache-${threadFrom}`), HLDP_SCAN_THREAD_FROM: threadFrom }, timeoutMs: 150_000 });
      expect(run.code, `${threadFrom}: ${run.stderr}`).not.toBe(134);
      expect(run.stderr).not.toMatch(/heap|index cache not written/i);
      const json = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<{ file: string; line: number; code: string; message: string }> };
      expect(json.tools.map(({ name }) => name).sort()).toEqual(['fine', 'hello']);
      expect(json.errors).toEqual([expect.objectContaining({ file: 'tools/bomb/TOOL.hdlp', line: 9, code: 'YAML_RESOURCE_LIMIT', message: expect.stringContaining('4194304 bytes of text once its aliases are expanded') })]);
    }
  }, 400_000);
});
