// Review userZ10, U10-16: `hldp call weather --params @p.json`, p.json written by a Windows editor (a UTF-8 byte order
// mark first), exited 2 with "Unexpected token '\ufeff'", and its example was another tool's params ('{"cmd":"echo hello"}').
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('hldp call --params with a byte order mark (U10-16)', () => {
  it('reads @FILE and stdin past a BOM, and a bad JSON names the tool called, not another tool\'s params', async () => {
    await writeFile(join(home.path, 'p.json'), '\uFEFF{"cmd":"echo from-bom-file"}');
    const file = await runCli(['call', 'shell-exec', '--params', '@p.json'], { cwd: home.path, env: home.env });
    expect(file.code, file.stderr).toBe(0);
    expect(file.stdout).toContain('from-bom-file');
    const stdin = await runCli(['call', 'shell-exec', '--params', '-'], { cwd: home.path, env: home.env, input: '\uFEFF{"cmd":"echo from-bom-stdin"}' });
    expect(stdin.code, stdin.stderr).toBe(0);
    expect(stdin.stdout).toContain('from-bom-stdin');
    const bad = await runCli(['call', 'weather', '--params', '{city:'], { cwd: home.path, env: home.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("pass a JSON object of 'weather''s params");
    expect(bad.stderr).not.toContain('echo hello');
  });
});
