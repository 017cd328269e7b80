import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

let temp: { path: string; cleanup: () => Promise<void> };
let sandbox: Sandbox;
const savedTemporary = process.env.TMPDIR;

function sh(script: string, env: Record<string, string> = {}): ProcessSpec {
  return { file: 'sh', args: ['-c', script], cwd: temp.path, env: minimalEnvironment(env), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace: temp.path } };
}

// a regression: each run's script (its environment, its params) is a file in the gateway's temporary folder; where
// that folder is inside the workspace, the workspace's bind showed every other run's script to a tool
describeWithBubblewrap('the run scripts of a gateway whose temporary folder is inside the workspace', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await mkdir(join(temp.path, 'tmp'));
    // before this file's first sandbox: the scripts' folder is made in the temporary folder of that moment
    process.env.TMPDIR = join(temp.path, 'tmp');
    sandbox = await createSandbox({ mode: 'auto' });
  });
  afterAll(async () => {
    if (savedTemporary === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTemporary;
    sandbox?.close();
    await temp?.cleanup();
  });

  it('are out of every tool’s sight, while another run’s script holds its secret', async () => {
    const started = join(temp.path, 'started');
    const other = runProcess(sh(`touch ${started}; sleep 3`, { HLDP_PARAM_TOKEN: 'secret-of-another-run' }));
    while (!(await readdir(temp.path)).includes('started')) await new Promise((resolve) => setTimeout(resolve, 20));
    // the scripts are there on the host, inside the workspace
    const folders = (await readdir(join(temp.path, 'tmp'))).filter((name) => name.startsWith('hldp-launch-'));
    expect(folders).toHaveLength(1);
    const reader = await runProcess(sh(`ls -A tmp/${folders[0]}; cat tmp/${folders[0]}/* 2>/dev/null; grep -rl secret-of-another-run . 2>/dev/null; true`));
    expect(reader).toMatchObject({ ok: true });
    expect(reader.output).not.toContain('secret-of-another-run');
    expect(reader.output).not.toMatch(/run-\d+\.sh/);
    expect(await other).toMatchObject({ ok: true });
  });
});
