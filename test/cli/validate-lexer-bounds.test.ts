// Review Z21. Z21-1: an anchored list of 128 aliases to an empty list, used 127 times (255 aliases, under the bound of
// 256), made yaml's own alias count walk the whole document at each alias of each use: 33 KB cost `hldp validate` 53 s
// of CPU against 1.3 s without the aliases; the count is now made in one pass (src/scanner/document-js.ts). Z21-2: 1 MiB
// of `%X` directive lines, counted by nothing, cost 20 s and 1.1 GB (dead under a 192 MB heap). Z21-3: `examples: [`
// and 1 MiB of commas — each an error of yaml's in a flow collection, where only block context's were counted — 37 s
// and 2.7 GB. Both are refused from the lexer's count now, before yaml builds anything, at the line where they go past.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const HEAD = ['name: t', 'display: T', 'intent: run a command', 'method: exec', 'executor: gatekeeper', 'author: me', 'created: 2026-01-01', 'why: test', 'params_schema:', '  cmd: { type: string, required: true }'];
// the reviewer's file (mkwalk.py), with or without its aliases: the pad is the document each walk visited
const walks = (aliases: boolean): string =>
  [...HEAD, 'x-e: &e []', `x-L: &L [${aliases ? Array(128).fill('*e').join(', ') : ''}]`, `x-u: [${aliases ? Array(127).fill('*L').join(', ') : ''}]`, `x-pad: [${Array(2000).fill('0').join(',')}]`, ''].join('\n');

let home: { path: string; cleanup: () => Promise<void> };
const registry = (name: string): string => join(home.path, name);
const env = (): Record<string, string> => ({ HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-lexer-bounds-');
  const write = async (root: string, name: string, text: string): Promise<void> => {
    await mkdir(join(home.path, root, 'tools', name), { recursive: true });
    await writeFile(join(home.path, root, 'tools', name, 'TOOL.hdlp'), text);
  };
  await write('hostile', 'directives', `${'%X\n'.repeat(349_000)}---\n${HEAD.join('\n')}\n`);
  await write('hostile', 'commas', `${HEAD.join('\n')}\nexamples: [${','.repeat(1_048_000)}]\n`);
  await write('walks', 't', walks(true));
  await write('plain', 't', walks(false));
});
afterAll(async () => home?.cleanup());

describe('texts whose cost to yaml the lexer did not count (review Z21)', () => {
  it('hldp validate refuses 349,000 directive lines at the 101st and 1 MiB of commas in a list at their line, within a 192 MB heap', { timeout: 120_000 }, async () => {
    const run = await runCli(['validate', '.', '--json'], { cwd: registry('hostile'), env: { ...env(), NODE_OPTIONS: '--max-old-space-size=192' }, timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(1);
    const { errors } = JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>> };
    expect(errors).toEqual([
      expect.objectContaining({ file: 'tools/commas/TOOL.hdlp', line: 11, code: 'YAML_RESOURCE_LIMIT', message: expect.stringMatching(/^YAML holds more than 100 lines or marks that are no key, value or entry .*an empty entry/) }),
      expect.objectContaining({ file: 'tools/directives/TOOL.hdlp', line: 101, code: 'YAML_RESOURCE_LIMIT', message: expect.stringMatching(/^YAML holds more than 100 directive lines/) }),
    ]);
  });

  it('hldp validate reads an anchored list of aliases to an empty list used 127 times in about the time of the same file without them', { timeout: 120_000 }, async () => {
    const elapsed = async (name: string): Promise<number> => {
      const started = performance.now();
      const run = await runCli(['validate', '.', '--json'], { cwd: registry(name), env: env(), timeoutMs: 100_000 });
      // read whole: the four x- fields are told unknown, as a walk's end would tell them
      expect(run.code, run.stderr).toBe(1);
      expect((JSON.parse(run.stdout) as { errors: Array<{ message: string }> }).errors.map(({ message }) => message.split(';')[0])).toEqual(['x-e', 'x-L', 'x-u', 'x-pad'].map((field) => `unknown field '${field}'`));
      return performance.now() - started;
    };
    // a warm start first, so neither run pays the first read of the CLI's files alone
    await elapsed('plain');
    const plain = await elapsed('plain');
    const aliased = await elapsed('walks');
    // 16,256 walks of the document took ~8 s of CPU here (~1 s without the aliases); one pass is within noise of it
    expect(aliased).toBeLessThan(3 * plain + 3000);
  });
});
