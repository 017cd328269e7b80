// Review Z19, Z19-5. A TOOL.hdlp refused for its aliases (~150 uses of one anchor: "YAML aliases expand too far") made
// `hldp validate` print only yaml's own "Excessive alias count indicates a resource exhaustion attack" and exit 2: no
// file, no line, and every other file's diagnostics lost — a `validate --staged` pre-commit hook failed the same way.
// The gateway's schema checks built the refused file again with yaml (its params' places, its defaults), with no
// limit and no guard. A file refused for its size is no longer read again there, and a place that yaml cannot build
// is the file's first line.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const BROKEN_OK = 'name: ok\n';
const ALIASES = `name: t\nintent: &i print a text\nparams_schema:\n  text: { type: string, description: *i }\ntags: [${Array(150).fill('*i').join(',')}]\n`;

let home: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-aliases-');
  for (const [name, text] of [['ok', BROKEN_OK], ['t', ALIASES]] as const) {
    await mkdir(join(home.path, 'registry', 'tools', name), { recursive: true });
    await writeFile(join(home.path, 'registry', 'tools', name, 'TOOL.hdlp'), text);
  }
});
afterAll(async () => home?.cleanup());

describe('hldp validate of a definition refused for its aliases, beside another broken one (review Z19, Z19-5)', () => {
  it("tells each file's errors at their lines and exits 1", { timeout: 60_000 }, async () => {
    const env = { HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_LOG_LEVEL: 'warn' };
    const run = await runCli(['validate', '.', '--json'], { cwd: join(home.path, 'registry'), env, timeoutMs: 50_000 });
    expect(run.stderr).not.toContain('Excessive alias count');
    expect(run.code, run.stderr).toBe(1);
    const { errors } = JSON.parse(run.stdout) as { errors: Array<{ file: string; line: number; code: string; message: string }> };
    expect(errors).toContainEqual(expect.objectContaining({ file: 'tools/t/TOOL.hdlp', line: 4, code: 'YAML_RESOURCE_LIMIT', message: expect.stringContaining('aliases expand too far') }));
    expect(errors).toContainEqual(expect.objectContaining({ file: 'tools/ok/TOOL.hdlp', message: "missing required field 'intent'" }));
  });
});
