// Review Z15-3. A 1 MB TOOL.hdlp whose one value is `- ` written 500,000 times (`- - - … 1`) was parsed whole by yaml
// before its depth was measured: `hldp validate` took 6.9 s of CPU and 921 MB, and each rescan of `hldp serve` held
// its event loop ~10 s. Now the nesting is counted from yaml's lexer before yaml builds anything, and the definition is
// refused at the line where it goes past the count, its neighbour served. Both commands run here with a 192 MB heap,
// which yaml's 500,000 collections overran (the process died of it).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const GOOD = ['name: good', 'display: good', 'intent: say hello', 'method: run', 'executor: shell', 'shell: {argv: [echo, hello]}', 'params_schema: {}', 'author: T-1', 'created: 2026-12-04', 'why: test', ''].join('\n');
const DEEP_ERROR = { file: 'tools/deep/TOOL.hdlp', line: 3, column: 1, code: 'YAML_RESOURCE_LIMIT', message: 'YAML nested more than 64 levels deep; flatten it' };

let home: { path: string; cleanup: () => Promise<void> };
const env = (): NodeJS.ProcessEnv => ({ NODE_OPTIONS: '--max-old-space-size=192', HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-deep-');
  const registry = join(home.path, 'registry');
  await mkdir(join(registry, 'tools', 'good'), { recursive: true });
  await mkdir(join(registry, 'tools', 'deep'), { recursive: true });
  await writeFile(join(registry, 'tools', 'good', 'TOOL.hdlp'), GOOD);
  await writeFile(join(registry, 'tools', 'deep', 'TOOL.hdlp'), `name: deep\nx:\n  ${'- '.repeat(500_000)}1\n`);
});
afterAll(async () => home?.cleanup());

describe('a 1 MB definition nested 500,000 levels deep beside a good one (review Z15, Z15-3)', () => {
  it('hldp validate refuses it at its line, within a 192 MB heap', { timeout: 120_000 }, async () => {
    const run = await runCli(['validate', '.', '--json'], { cwd: join(home.path, 'registry'), env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(1);
    const errors = (JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>> }).errors;
    expect(errors).toEqual([expect.objectContaining(DEEP_ERROR)]);
  });

  it('hldp scan serves the good one and tells the error, within a 192 MB heap', { timeout: 120_000 }, async () => {
    const run = await runCli(['scan', '--repo', join(home.path, 'registry'), '--json'], { cwd: home.path, env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(0);
    const index = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<Record<string, unknown>> };
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining(DEEP_ERROR)]);
  });
});
