// Review Z21, Z21-4: the validator's hint for input-method punctuation (U10-3) looked back from each of yaml's errors
// for the start of its line: 400,000 errors on one long line and one '，' made `hldp validate` take 38 s against 13 s
// without the '，'. The text's line breaks are now indexed once (src/scanner/ime-punctuation.ts; its sameness with the
// old look-up is ime-punctuation-lines.property.test.ts's). A file of one long line (a quoted item, then '，' and 2,000
// repeated keys of a flow mapping, each an error of yaml's) is told as one error at the comma's place. At 900 KB and
// 20,000 keys it took 52 s against 10 s with an ASCII ',' before, and as long as that file after (load 12, 2 cores);
// the test asserts what is told, not how long it takes.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const HEAD = ['name: t', 'display: T', 'intent: run a command', 'method: exec', 'executor: gatekeeper', 'author: me', 'created: 2026-01-01', 'why: test', 'params_schema:', '  cmd: { type: string, required: true }'];
const PAD = 90_000;
const line = (comma: string): string => `examples: {"${'a'.repeat(PAD)}"${comma} ${'x, '.repeat(2_000)}}`;

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
  it('tells the comma once, at its place; the same file with an ASCII comma, the repeated keys', async () => {
    const validate = async (name: string): Promise<{ errors: Array<Record<string, unknown>> }> => {
      const run = await runCli(['validate', '.', '--json'], { cwd: registry(name), env: env() });
      expect(run.code, run.stderr).toBe(1);
      return { errors: (JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>> }).errors };
    };
    const typed = await validate('typed');
    expect(typed.errors).toEqual([
      expect.objectContaining({ file: 'tools/t/TOOL.hdlp', line: 11, column: 'examples: {"'.length + PAD + 2, code: 'YAML_SYNTAX', message: expect.stringMatching(/^full-width comma '，' \(U\+FF0C\) does not separate items in YAML, so the list on line 11 cannot be read/) }),
    ]);
    const ascii = await validate('ascii');
    // the ASCII comma's file is yaml's 1,999 repeated keys, of which the first 10 are shown
    expect(ascii.errors).toHaveLength(10);
    expect(ascii.errors.every((error) => error.code === 'YAML_SYNTAX' && error.line === 11 && /written twice/.test(String(error.message)))).toBe(true);
  });
});
