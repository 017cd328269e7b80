import { execFileSync } from 'node:child_process';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { initRepository, makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review O, O4: a root gateway gave its workspace to run_as (chown to nobody) before it judged the workspace: a refused
// one (the tools repository, a folder holding /etc) was given away all the same, and a shared sticky folder (/tmp),
// never refused, became nobody's, who could then rename or delete every user's files in it. Real `hldp call` as root.
const root = process.getuid?.() === 0;

type Receipt = { ok: boolean; code?: string; output: string; error?: string };

let temp: { path: string; cleanup: () => Promise<void> };
const repo = () => join(temp.path, 'repo');

async function callIds(workspace: string, sandbox: string): Promise<{ receipt: Receipt; stderr: string }> {
  const env = { HLDP_CACHE_DIR: join(temp.path, `cache-${sandbox}`), HLDP_DATA_DIR: join(temp.path, `data-${sandbox}`), HLDP_WORKSPACE: workspace, HLDP_SANDBOX: sandbox, HLDP_LOG_LEVEL: 'warn' };
  const run = await runCli(['call', 'ids', '--repo', repo(), '--json'], { env });
  return { receipt: JSON.parse(run.stdout) as Receipt, stderr: run.stderr };
}

// needs a root gateway
const describeAsRoot = (name: string, suite: () => void): void => describeNeeding([ROOT], name, suite);

describeAsRoot('a root gateway gives its workspace to run_as only once it is judged fit', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await writeFiles(repo(), { 'tools/ids/TOOL.hdlp': makeToolYaml('ids', { executor: 'shell', method: 'run', shell: '{ argv: [id, -u] }' }) });
    await chmod(repo(), 0o755);
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it.each(['required', 'off'])('leaves the tools repository root’s when it is the workspace (sandbox %s)', async (sandbox) => {
    const { receipt } = await callIds(repo(), sandbox);
    if (sandbox === 'required') {
      expect(receipt).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
      expect(receipt.error).toMatch(/the tools repository/);
    }
    expect((await stat(repo())).uid).toBe(0);
  });

  it('leaves a shared sticky folder root’s, and still runs the tool as nobody', async () => {
    const shared = join(temp.path, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    const { receipt, stderr } = await callIds(shared, 'required');
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: true, output: '65534\n' });
    expect((await stat(shared)).uid).toBe(0);
    // said on stderr, through the sandbox's onNotice (review userZ3, LOW 7)
    expect(stderr).not.toMatch(/now belongs to uid 65534/);
    expect(stderr).toMatch(/is not given to uid 65534, .* it is a shared folder \(sticky, as \/tmp\)/);
  });

  it("leaves a git repository's working tree root’s, so that root's git still reads it (review O, O9)", async () => {
    const checkout = join(temp.path, 'checkout');
    await initRepository(checkout);
    await chmod(checkout, 0o755);
    const { receipt } = await callIds(checkout, 'required');
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: true, output: '65534\n' });
    expect((await stat(checkout)).uid).toBe(0);
    // git refuses a repository whose folder another user owns: "detected dubious ownership"
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: checkout, encoding: 'utf8' })).toBe('');
  });

  it('gives a root-owned project folder to nobody, as before', async () => {
    const project = join(temp.path, 'project');
    await mkdir(project, { mode: 0o755 });
    const { receipt } = await callIds(project, 'required');
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: true, output: '65534\n' });
    expect((await stat(project)).uid).toBe(65534);
  });
});
