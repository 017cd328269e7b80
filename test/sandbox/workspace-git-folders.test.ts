import { execFileSync } from 'node:child_process';
import { access, chown, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeTempDir, writeFiles } from '../helpers/git.js';
import { confirmedCall, type CliReceipt } from '../helpers/confirmed-call.js';
import { runCli } from '../helpers/run-cli.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { evalShTool } from './support/eval-tool.js';

// Review P (P2, P3, P7, P9, P10, P11, P16): every way git finds the control files it runs on the host. Each case is a
// real `hldp call` (and `hldp confirm` for file-write) by a tool or agent, then the owner's own git on the host, which
// must not run what the tool planted.

const exists = (path: string) => access(path).then(() => true, () => false);
const IDENTITY = ['-c', 'user.name=owner', '-c', 'user.email=owner@example.com'];
const root = process.getuid?.() === 0;

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let log: string;

// a CLI run past the default 55 s at load 20 on 2 cores (seen): a hang still ends with the test
const call = (tool: string, params: object, options: { env?: NodeJS.ProcessEnv; repo?: string } = {}): Promise<CliReceipt> =>
  confirmedCall(tool, params, { ...options, env: { ...env, ...options.env }, timeoutMs: 150_000 });

/** The owner, on the host, outside any sandbox: git as they run it every day. */
const owner = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const hook = (name: string) => `printf '#!/bin/sh\\necho ${name}-RAN >> ${log}\\n'`;
const fsmonitor = (name: string) => `printf '[core]\\n\\tfsmonitor = "echo ${name}-RAN >> ${log}; false"\\n'`;

describeWithBubblewrap('the git folders a tool may not write, however git finds them (review P)', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-git-folders-');
    log = join(temp.path, 'ran');
    // as root where the tests run as root (CI): no file mode stops the tool, only the sandbox's binds, which are under test
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root' };
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('P9: keeps a bare repository’s hooks and config read-only, for processes and for file-write, and the owner’s push runs nothing planted', async () => {
    const workspace = join(temp.path, 'ws');
    const origin = await initRepository(join(workspace, 'origin.git'), { bare: true });
    const work = join(temp.path, 'work');
    owner(temp.path, 'clone', '-q', origin, work);
    const script = [
      `(${hook('POST-RECEIVE')} > origin.git/hooks/post-receive && chmod +x origin.git/hooks/post-receive) 2>/dev/null || echo hooks-refused`,
      `git --git-dir=origin.git config core.hooksPath ${join(temp.path, 'elsewhere')} 2>/dev/null || echo config-refused`,
      // its objects and refs stay writable: a tool still pushes to it
      'git init -q mine && git -C mine -c user.name=t -c user.email=t@e commit -q --allow-empty -m tool && git -C mine push -q ../origin.git HEAD:refs/heads/tool && echo pushed',
    ].join('; ');
    const shell = await call('shell-exec', { cmd: script }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: true, output: 'hooks-refused\nconfig-refused\npushed\n' });
    const written = await call('file-write', { path: 'origin.git/config', content: `[core]\n\thooksPath = ${temp.path}\n` }, { env: { HLDP_WORKSPACE: workspace } });
    expect(written).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    expect(written.error).toMatch(/inside a git repository's \.git or other git folder/);
    owner(work, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'one');
    owner(work, 'push', '-q', 'origin', 'HEAD:main');
    expect(await exists(log)).toBe(false);
    expect(await readFile(join(origin, 'config'), 'utf8')).not.toContain('hooksPath');
  }, 300_000);

  // Review Q, Q8: the launch's walk read a git folder's HEAD on the gateway's main thread with a plain read, and a
  // FIFO named HEAD (beside objects/ and refs/) held open(2) for good: every later launch, and every request of a
  // server, waited on it
  it('Q8: a FIFO or a device a tool names HEAD or config does not hold the next launch', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    const plant = [
      'mkdir -p a/.git/objects a/.git/refs b/.git/objects b/.git/refs c/.git',
      'mkfifo a/.git/HEAD c/.git/config',
      'ln -s /dev/zero b/.git/HEAD',
      'echo planted',
    ].join(' && ');
    expect(await call('shell-exec', { cmd: plant }, { env: { HLDP_WORKSPACE: workspace } })).toMatchObject({ ok: true, output: 'planted\n' });
    const run = await runCli(['call', 'shell-exec', '--json', '--params', JSON.stringify({ cmd: 'echo next' })], { env: { ...env, HLDP_WORKSPACE: workspace }, timeoutMs: 60_000 });
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, output: 'next\n' });
  }, 300_000);

  it('P2: a tool cannot create config.worktree (extensions.worktreeConfig) in a repository or its linked worktree; the owner still can', async () => {
    const workspace = join(temp.path, 'ws');
    const proj = join(workspace, 'proj');
    await initRepository(proj);
    await commitFiles(proj, { 'README.md': 'one\n' });
    await git(proj, 'config', 'extensions.worktreeConfig', 'true');
    // named to be walked before its repository: its git folder is reached first from its `.git` file
    await git(proj, 'worktree', 'add', '-q', '-b', 'side', '../a-wt');
    const script = [
      `${fsmonitor('MAIN-FSMONITOR')} > proj/.git/config.worktree 2>/dev/null || echo main-refused`,
      `${fsmonitor('WT-FSMONITOR')} > proj/.git/worktrees/a-wt/config.worktree 2>/dev/null || echo worktree-refused`,
      'echo two > a-wt/file && git -C a-wt add file && git -C a-wt -c user.name=t -c user.email=t@e commit -qm two && echo committed',
    ].join('; ');
    const shell = await call('shell-exec', { cmd: script }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: true, output: 'main-refused\nworktree-refused\ncommitted\n' });
    owner(proj, 'status', '--short');
    owner(join(workspace, 'a-wt'), 'status', '--short');
    expect(await exists(log)).toBe(false);
    // an empty config.worktree is no setting to git (2.39), and the owner's own to write
    expect(await readFile(join(proj, '.git', 'config.worktree'), 'utf8')).toBe('');
    owner(join(workspace, 'a-wt'), 'config', '--worktree', 'core.sparseCheckout', 'false');
    expect(owner(join(workspace, 'a-wt'), 'config', '--worktree', '--get', 'core.sparseCheckout').trim()).toBe('false');
    // a linked worktree's git folder is given no hooks or config of its own: they are its repository's
    expect(await exists(join(proj, '.git', 'worktrees', 'a-wt', 'hooks'))).toBe(false);
    expect(owner(join(workspace, 'a-wt'), 'log', '--format=%s', '-1').trim()).toBe('two');
  }, 300_000);

  it('P10: file-write refuses the git folder a .git file names (git init --separate-git-dir), and the owner’s git status runs nothing', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    owner(temp.path, 'init', '-q', `--separate-git-dir=${join(workspace, 'sepgit')}`, join(workspace, 'proj'));
    const config = await readFile(join(workspace, 'sepgit', 'config'), 'utf8');
    for (const path of ['sepgit/config', 'sepgit/hooks/post-commit']) {
      const written = await call('file-write', { path, content: `${config}\tfsmonitor = "echo GK-RAN >> ${log}; false"\n` }, { env: { HLDP_WORKSPACE: workspace } });
      expect(written, path).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    }
    owner(join(workspace, 'proj'), 'status', '--short');
    expect(await exists(log)).toBe(false);
    expect(await readFile(join(workspace, 'sepgit', 'config'), 'utf8')).toBe(config);
  }, 300_000);

  it('P16: refuses a launch where a control entry is a symbolic link (a shared config), and file-write there; the owner’s git status runs nothing planted', async () => {
    // shared hooks (.git/hooks -> ../.githooks) run: workspace-git-settings.test.ts
    const workspace = join(temp.path, 'ws');
    const proj = await initRepository(join(workspace, 'proj'));
    await rename(join(proj, '.git', 'config'), join(proj, '.gitconfig-shared'));
    await symlink('../.gitconfig-shared', join(proj, '.git', 'config'));
    const script = `cd proj/.git && rm config && ${fsmonitor('REPLACED-CONFIG')} > config && echo replaced`;
    const shell = await call('shell-exec', { cmd: script }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
    expect(shell.error).toContain(`${join(proj, '.git', 'config')}, a symbolic link the sandbox cannot protect`);
    const written = await call('file-write', { path: 'proj/.gitconfig-shared', content: '[core]\n\tbare = false\n' }, { env: { HLDP_WORKSPACE: workspace } });
    expect(written).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    expect(written.error).toMatch(/the sandbox runs no tool in this workspace/);
    owner(proj, 'status', '--short');
    expect(await exists(log)).toBe(false);
  }, 300_000);

  it('P11: folders planted in .git/modules past the bound refuse the next launch, never leave a submodule’s config writable', async () => {
    const workspace = join(temp.path, 'ws');
    const source = await initRepository(join(temp.path, 'source'));
    await commitFiles(source, { 'lib.txt': 'lib\n' });
    // the last repository walked, at the deepest level: nothing after it reaches the outer walk's bound
    const superproject = await initRepository(join(workspace, 'zz', 'yy'));
    await git(superproject, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', source, 'real');
    await git(superproject, 'commit', '-qm', 'submodule');
    const plant = 'cd zz/yy/.git/modules && for i in $(seq -w 0 40); do mkdir -p $(for j in $(seq -w 0 60); do printf "zj$i/s$j "; done); done; echo planted';
    expect(await call('shell-exec', { cmd: plant }, { env: { HLDP_WORKSPACE: workspace } })).toMatchObject({ ok: true, output: 'planted\n' });
    const written = await call('shell-exec', { cmd: `${fsmonitor('SUBMODULE-FSMONITOR').replace("printf '", "printf '\\n")} >> zz/yy/.git/modules/real/config && echo written` }, { env: { HLDP_WORKSPACE: workspace } });
    expect(written).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
    expect(written.error).toMatch(/more than 2000 folders/);
    owner(superproject, 'status', '--short');
    expect(await exists(log)).toBe(false);
    expect(await readFile(join(superproject, '.git', 'modules', 'real', 'config'), 'utf8')).not.toContain('fsmonitor');
  }, 300_000);

  it('P7: keeps the repositories in a path a tool declares writable guarded as the workspace’s are', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    const other = join(temp.path, 'other');
    const proj = await initRepository(join(other, 'proj'));
    const tools = join(temp.path, 'tools');
    await writeFiles(tools, {
      'tools/declw/TOOL.hdlp': evalShTool('declw', { sandbox: `{ filesystem: { write: [${JSON.stringify(other)}] } }` }),
    });
    const script = [
      `(${hook('DECLARED-HOOK')} > ${proj}/.git/hooks/post-commit && chmod +x ${proj}/.git/hooks/post-commit) 2>/dev/null || echo hooks-refused`,
      `git -C ${proj} config core.fsmonitor "echo DECLARED-FSMONITOR-RAN >> ${log}; false" 2>/dev/null || echo config-refused`,
      `echo made > ${other}/out && echo declared-writable`,
    ].join('; ');
    // the project is in the host's /tmp here: the operator lists it in the ceiling (review T, T4)
    const config = join(temp.path, 'ceiling.yaml');
    await writeFile(config, `sandbox:\n  ceiling:\n    writable_roots: [${JSON.stringify(other)}]\n`);
    const receipt = await call('declw', { cmd: script }, { repo: tools, env: { HLDP_WORKSPACE: workspace, HLDP_CONFIG: config } });
    expect(receipt).toMatchObject({ ok: true, output: 'hooks-refused\nconfig-refused\ndeclared-writable\n' });
    owner(proj, 'status', '--short');
    owner(proj, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'one');
    expect(await exists(log)).toBe(false);
  }, 300_000);

  it.runIf(root)('P3: a root gateway makes the missing control entries in a user’s repository as the repository’s owner', async () => {
    const workspace = join(temp.path, 'ws');
    const proj = await initRepository(join(workspace, 'proj'));
    // cloned with an empty template: no hooks folder
    await rm(join(proj, '.git', 'hooks'), { recursive: true });
    execFileSync('chown', ['-R', '1000:1000', workspace]);
    await chown(temp.path, 0, 0);
    expect(await call('shell-exec', { cmd: 'echo ran' }, { env: { HLDP_WORKSPACE: workspace } })).toMatchObject({ ok: true, output: 'ran\n' });
    for (const [entry, mode] of [['hooks', 0o755], ['commondir', 0o644], ['config.worktree', 0o644]] as const) {
      const info = await stat(join(proj, '.git', entry));
      expect({ entry, uid: info.uid, gid: info.gid, mode: info.mode & 0o777 }).toEqual({ entry, uid: 1000, gid: 1000, mode });
    }
  }, 300_000);
});
