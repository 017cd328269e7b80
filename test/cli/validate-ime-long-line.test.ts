// Review Z21, Z21-4: the validator's hint for input-method punctuation (U10-3) looked back from each of yaml's errors
// for the start of its line: 400,000 errors on one long line and one '，' made `hldp validate` take 38 s against 13 s
// without the '，'. The text's line breaks are now indexed once (src/scanner/ime-punctuation.ts); this file of one
// long line (a 900 KB quoted item, then '，' and 20,000 repeated keys of a flow mapping, each an error of yaml's) is
// read in about the time of the same file with an ASCII ',' (five times as long before), and told as one error.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const HEAD = ['name: t', 'display: T', 'intent: run a command', 'method: exec', 'executor: gatekeeper', 'author: me', 'created: 2026-01-01', 'why: test', 'params_schema:', '  cmd: { type: string, required: true }'];
const PAD = 900_000;
const line = (comma: string): string => `examples: {"${'a'.repeat(PAD)}"${comma} ${'x, '.repeat(20_000)}}`;

let home: { path: string; cleanup: () => Promise<void> };
const registry = (name: string): string => join(home.path, name);
const env = (): Record<string, string> => ({ HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-ime-long-line-');
  for (const [name, comma] of [['typed', '，'], ['ascii', ',']] as const) {
    await mkdir(join(registry(name), 'tools', 't'), { recursive: true });
    await writeFile(join(registry(name), 'tools', 't', 'TOOL.hdlp'), `${[...HEAD, line(comma)].join('\n')}\n`);
  }
});
afterAll(async () => home?.cleanup());

describe('hldp validate of a long line of YAML errors holding a full-width comma (review Z21-4)', () => {
  it('tells the comma once, at its place, in about the time the same file with an ASCII comma takes', { timeout: 240_000 }, async () => {
    const validate = async (name: string): Promise<{ elapsed: number; errors: Array<Record<string, unknown>> }> => {
      const started = performance.now();
      const run = await runCli(['validate', '.', '--json'], { cwd: registry(name), env: env(), timeoutMs: 200_000 });
      expect(run.code, run.stderr).toBe(1);
      return { elapsed: performance.now() - started, errors: (JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>> }).errors };
    };
    const typed = await validate('typed');
    expect(typed.errors).toEqual([
      expect.objectContaining({ file: 'tools/t/TOOL.hdlp', line: 11, column: 'examples: {"'.length + PAD + 2, code: 'YAML_SYNTAX', message: expect.stringMatching(/^full-width comma '，' \(U\+FF0C\) does not separate items in YAML, so the list on line 11 cannot be read/) }),
    ]);
    const ascii = await validate('ascii');
    // the ASCII comma's file is yaml's 19,999 repeated keys, of which the first 10 are shown
    expect(ascii.errors).toHaveLength(10);
    expect(ascii.errors.every((error) => error.code === 'YAML_SYNTAX' && error.line === 11 && /written twice/.test(String(error.message)))).toBe(true);
    // 52 s against 10 s before (20,000 looks back over 900 KB, at load 12 on 2 cores); within noise of it now
    expect(typed.elapsed).toBeLessThan(2 * ascii.elapsed + 2000);
  });
});
