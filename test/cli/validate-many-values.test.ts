// Review Z18, Z18-3. A TOOL.hdlp whose aliases list holds more than 100,000 values is refused for it. `hldp validate`
// then parsed the refused file whole twice more, with no limit, to check its aliases and its target (fixv24's U9-4
// reads): 43 s and 1.1 GB for 330,000 values. Now a file refused for its size is not read again — so its aliases are
// not checked against other tools' names, which is how this test sees it — and its values are counted before yaml
// builds its document: by the fast reader up to 256 KiB, and past it (where yaml built the document whole, ~10 s and
// ~390 MB for 660 KB, in the scan's parse thread, and validate of it died under a 192 MB heap) from yaml's lexer, which
// refuses it at the line where the count goes past 100,000. Both commands run here with a 192 MB heap.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const GOOD = ['name: good', 'display: good', 'intent: say hello', 'method: run', 'executor: shell', 'shell: {argv: [echo, hello]}', 'params_schema: {}', 'author: T-1', 'created: 2026-12-04', 'why: test', ''].join('\n');
const tooMany = (name: string, line: number) => ({ file: `tools/${name}/TOOL.hdlp`, line, column: 1, code: 'YAML_RESOURCE_LIMIT', message: 'YAML holds more than 100000 values once its aliases are expanded; use anchors less, or write less' });
// 220 KB (the fast reader's), 660 KB on one line, and 720 KB of a block list whose 100,001st value (the document, its
// `name`, its `aliases` and 99,998 entries) is at line 100,000
const TOO_MANY = [tooMany('block', 100_000), tooMany('many', 2), tooMany('wide', 2)];

let home: { path: string; cleanup: () => Promise<void> };
const env = (): NodeJS.ProcessEnv => ({ NODE_OPTIONS: '--max-old-space-size=192', HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-many-');
  const registry = join(home.path, 'registry');
  const write = async (name: string, text: string): Promise<void> => {
    await mkdir(join(registry, 'tools', name), { recursive: true });
    await writeFile(join(registry, 'tools', name, 'TOOL.hdlp'), text);
  };
  await write('good', GOOD);
  await write('many', `name: many\naliases: [good, ${Array(110_000).fill('a').join(',')}]\n`);
  await write('wide', `name: wide\naliases: [good, ${Array(330_000).fill('a').join(',')}]\n`);
  await write('block', `name: block\naliases:\n  - good\n${'  - a\n'.repeat(120_000)}`);
});
afterAll(async () => home?.cleanup());

describe('definitions of 110,000 to 330,000 values, up to 720 KB, beside a good one (review Z18, Z18-3)', () => {
  it('hldp validate refuses each at the line its values go past 100,000, within a 192 MB heap, and reads nothing more of them: their alias of another tool is not told', { timeout: 120_000 }, async () => {
    const run = await runCli(['validate', '.', '--json'], { cwd: join(home.path, 'registry'), env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(1);
    const { errors, warnings } = JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>>; warnings: Array<Record<string, unknown>> };
    expect(errors).toEqual(TOO_MANY.map((error) => expect.objectContaining(error)));
    expect(warnings).toEqual([]);
  });

  it('hldp scan serves the good one and tells the errors, within a 192 MB heap', { timeout: 120_000 }, async () => {
    const run = await runCli(['scan', '--repo', join(home.path, 'registry'), '--json'], { cwd: home.path, env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(0);
    const index = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<Record<string, unknown>> };
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual(TOO_MANY.map((error) => expect.objectContaining(error)));
  });
});
