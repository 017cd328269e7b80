// Review Z18, Z18-3. A TOOL.hdlp whose aliases list holds more than 100,000 values is refused for it. `hldp validate`
// then parsed the refused file whole twice more, with no limit, to check its aliases and its target (fixv24's U9-4
// reads): 43 s and 1.1 GB for 330,000 values. Now a file refused for its size is not read again — so its aliases are
// not checked against other tools' names, which is how this test sees it — and one the fast reader has measured
// (up to 256 KiB) is refused from that measure, without building yaml's document of it first.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const GOOD = ['name: good', 'display: good', 'intent: say hello', 'method: run', 'executor: shell', 'shell: {argv: [echo, hello]}', 'params_schema: {}', 'author: T-1', 'created: 2026-12-04', 'why: test', ''].join('\n');
const MANY_ERROR = { file: 'tools/many/TOOL.hdlp', line: 1, column: 1, code: 'YAML_RESOURCE_LIMIT', message: expect.stringContaining('more than 100000 values') };

let home: { path: string; cleanup: () => Promise<void> };
const env = (): NodeJS.ProcessEnv => ({ HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-many-');
  const registry = join(home.path, 'registry');
  await mkdir(join(registry, 'tools', 'good'), { recursive: true });
  await mkdir(join(registry, 'tools', 'many'), { recursive: true });
  await writeFile(join(registry, 'tools', 'good', 'TOOL.hdlp'), GOOD);
  await writeFile(join(registry, 'tools', 'many', 'TOOL.hdlp'), `name: many\naliases: [good, ${Array(110_000).fill('a').join(',')}]\n`);
});
afterAll(async () => home?.cleanup());

describe('a 220 KB definition of 110,000 values beside a good one (review Z18, Z18-3)', () => {
  it('hldp validate refuses it at line 1, and reads nothing more of it: its alias of another tool is not told', { timeout: 120_000 }, async () => {
    const run = await runCli(['validate', '.', '--json'], { cwd: join(home.path, 'registry'), env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(1);
    const { errors, warnings } = JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>>; warnings: Array<Record<string, unknown>> };
    expect(errors).toEqual([expect.objectContaining(MANY_ERROR)]);
    expect(warnings).toEqual([]);
  });

  it('hldp scan serves the good one and tells the error', { timeout: 120_000 }, async () => {
    const run = await runCli(['scan', '--repo', join(home.path, 'registry'), '--json'], { cwd: home.path, env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(0);
    const index = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<Record<string, unknown>> };
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining(MANY_ERROR)]);
  });
});
