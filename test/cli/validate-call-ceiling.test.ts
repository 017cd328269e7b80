// Review userZ9, U9-2: a tool's deadline above the gateway's max_call_timeout_ms is cut to it at every call
// (`timeout_from: "ceiling"`): a nightly 24 h job written for a gateway of an hour's ceiling was killed at its first hour,
// and `hldp validate --config` (which warns a sandbox beyond the config's ceiling) said nothing. Now it warns at the field.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const shell = { method: 'run', executor: 'shell', shell: '\n  argv: [sleep, "1"]' };

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;

describe('hldp validate --config of a tool whose deadline is above the gateway\'s max_call_timeout_ms', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    repo = await initRepository(`${temp.path}/repo`);
    await commitFiles(repo, {
      'tools/nightly/TOOL.hdlp': makeToolYaml('nightly', { ...shell, constraints: '\n  timeout_ms: 7200000\n  max_timeout_ms: 86400000' }),
      'tools/quick/TOOL.hdlp': makeToolYaml('quick', { ...shell, constraints: '\n  timeout_ms: 60000' }),
    });
    await writeFile(join(temp.path, 'hldp.yaml'), 'max_call_timeout_ms: 3600000\n');
    env = { HLDP_CACHE_DIR: `${temp.path}/cache`, HLDP_DATA_DIR: `${temp.path}/data`, HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(() => temp?.cleanup());

  it('warns at timeout_ms and max_timeout_ms, naming the ceiling, and nothing of a tool within it', async () => {
    const run = await runCli(['validate', repo, '--config', join(temp.path, 'hldp.yaml'), '--json'], { env, cwd: temp.path });
    expect(run.code, run.stderr).toBe(0);
    const { errors, warnings } = JSON.parse(run.stdout) as Record<'errors' | 'warnings', Array<{ file: string; line: number; code: string; severity: string; message: string }>>;
    expect(errors).toEqual([]);
    const ceiling = warnings.filter((diagnostic) => diagnostic.code === 'BEYOND_CALL_CEILING');
    expect(ceiling.map(({ file, severity }) => [file.endsWith('tools/nightly/TOOL.hdlp'), severity])).toEqual([
      [true, 'warning'],
      [true, 'warning'],
    ]);
    expect(ceiling[0]!.message).toMatch(/'constraints\.timeout_ms' \(7200000 ms\) is above this gateway's max_call_timeout_ms \(3600000 ms\): its calls are cut to 3600000 ms/);
    expect(ceiling[1]!.message).toMatch(/'constraints\.max_timeout_ms' \(86400000 ms\) is above/);
    // each at its own line of the file
    expect(ceiling[0]!.line).not.toBe(ceiling[1]!.line);
  });

  it('says nothing of it without --config (the gateway that will serve the tool is not known)', async () => {
    const run = await runCli(['validate', repo, '--json'], { env, cwd: temp.path });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('BEYOND_CALL_CEILING');
  });
});
