// Review Z20, Z20-2 and Z20-9: texts within the size and value limits that cost yaml far more than their values.
// Z20-2: 2,000 anchored lists of one alias each, each used once — yaml walks the whole document at each first use, so
// 65 KB cost `hldp validate` 9 s of CPU (135 KB, 83 s). Z20-9: 500,000 lines of a bare word (1 MB) are no value the
// lexer's count saw, and yaml built a node and an error per line: 39 s and 2.75 GB; 199,999 (within the bound on nodes,
// 2N + 1) still ~30 s, so the lines and marks yaml can read only as errors are counted too, and refused past 100 (Z20-9's
// rest, fixz27c). All are now refused from the lexer's count, before yaml builds anything, at the line where it goes
// past (the first such line, for those); validate runs under a 256 MB heap, which yaml's errors alone would outgrow.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const K = 2000;
const list = (item: (at: number) => string): string => `[${Array.from({ length: K }, (_, at) => item(at)).join(', ')}]`;
const WALKS = ['name: walks', 'intent: run a command', 'x-a: ' + list((at) => `&s${at} x`), 'x-b: ' + list((at) => `&L${at} [*s${at}]`), 'x-c: ' + list((at) => `*L${at}`), ''].join('\n');

let home: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-walks-');
  const write = async (name: string, text: string): Promise<void> => {
    await mkdir(join(home.path, 'registry', 'tools', name), { recursive: true });
    await writeFile(join(home.path, 'registry', 'tools', name, 'TOOL.hdlp'), text);
  };
  await write('walks', WALKS);
  await write('bare', 'name: bare\n' + 'a\n'.repeat(199_999));
  // lines yaml reads as part of an explicit key's (`? "a"`), which the error count leaves alone: the bound on nodes holds them
  await write('keyed', '? "a"\n' + ' ""\n'.repeat(250_000));
});
afterAll(async () => home?.cleanup());

describe('texts whose cost to yaml their values do not bound (review Z20, Z20-2, Z20-9)', () => {
  it('hldp validate refuses 4,000 aliases at their line, 199,999 bare lines at the first, 250,000 nodes at the 200,002nd, within a 256 MB heap', { timeout: 120_000 }, async () => {
    const env = { NODE_OPTIONS: '--max-old-space-size=256', HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' };
    const run = await runCli(['validate', '.', '--json'], { cwd: join(home.path, 'registry'), env, timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(1);
    const { errors } = JSON.parse(run.stdout) as { errors: Array<Record<string, unknown>> };
    expect(errors).toEqual([
      expect.objectContaining({ file: 'tools/bare/TOOL.hdlp', line: 2, code: 'YAML_RESOURCE_LIMIT', message: expect.stringMatching(/^YAML holds more than 100 lines or marks that are no key, value or entry \(a key without ':'/) }),
      expect.objectContaining({ file: 'tools/keyed/TOOL.hdlp', line: 200_002, code: 'YAML_RESOURCE_LIMIT', message: expect.stringContaining('more than 100000 values') }),
      expect.objectContaining({ file: 'tools/walks/TOOL.hdlp', line: 4, code: 'YAML_RESOURCE_LIMIT', message: 'YAML uses more than 256 aliases (*name); write the values out, or use fewer anchors' }),
    ]);
  });
});
