import { execFileSync } from 'node:child_process';
import { access, cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeTempDir } from '../helpers/git.js';
import { confirmedCall, type CliReceipt } from '../helpers/confirmed-call.js';
import { spawnService } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Review N (N19, N23, N25): what a tool can write on the host outside what README's "The sandbox" promises. Each case
// is a real `hldp call` (and `hldp confirm` for file-write, which requires confirmation), as a user or agent runs it.

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const exists = (path: string) => access(path).then(() => true, () => false);

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;

// the caller's own confirmation, where a call asks for one: an MCP agent gives it with the confirm meta-tool
const call = (tool: string, params: object, options: { cwd?: string; env?: NodeJS.ProcessEnv; repo?: string } = {}): Promise<CliReceipt> =>
  confirmedCall(tool, params, { ...options, env: { ...env, ...options.env } });

describeWithBubblewrap('what a tool may write in its workspace (review N)', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-workspace-writes-');
    // as root where the tests run as root (CI): no file mode stops the tool, only the sandbox's binds, which are under test
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root' };
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('N19: refuses a home folder as workspace for shell tools and the file methods, and serve and gatekeeper say so at start', async () => {
    // HOME faked under a temporary folder: the same code path as a real home
    const home = join(temp.path, 'home');
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA original\n');
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-TEXT\n');
    const asHome = { cwd: home, env: { HOME: home } };
    const shell = await call('shell-exec', { cmd: 'echo ssh-ed25519 ATTACKER >> .ssh/authorized_keys; echo export EVIL=1 >> .bashrc' }, asHome);
    expect(shell).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
    expect(shell.error).toContain(`is the home folder ${home}`);
    expect(shell.error).toMatch(/set workspace_root \(or HLDP_WORKSPACE\)/);
    const read = await call('file-read', { path: '.ssh/id_ed25519' }, asHome);
    expect(read).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', output: '' });
    expect(read.error).toContain('no file method runs in this workspace');
    const write = await call('file-write', { path: '.profile', content: 'export EVIL=1\n' }, asHome);
    expect(write).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
    // a folder holding the home folder is refused as the home folder is
    const holding = await call('file-read', { path: 'home/.ssh/id_ed25519' }, { cwd: temp.path, env: { HOME: home } });
    expect(holding).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
    expect(holding.error).toContain(`holds the home folder ${home}`);
    expect(await readFile(join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe('ssh-ed25519 AAAA original\n');
    expect(await exists(join(home, '.bashrc'))).toBe(false);
    expect(await exists(join(home, '.profile'))).toBe(false);

    const serve = await spawnService(['serve', '--port', '0'], { ...env, HOME: home, HLDP_WORKSPACE: home }, / at (http:\/\/[\d.:]+)\n/);
    try {
      expect(serve.stderr()).toMatch(new RegExp(`hldp: WARNING: workspace: the workspace ${home} is the home folder .*set workspace_root \\(or HLDP_WORKSPACE\\)`));
    } finally {
      await serve.stop();
    }
    const gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', home], { ...env, HOME: home, HLDP_GATEKEEPER_TOKEN: 'a-long-gatekeeper-token-0123' }, /gatekeeper at /);
    try {
      expect(gatekeeper.stderr()).toMatch(/hldp: WARNING: workspace: .* is the home folder .*set --root to a project's folder/);
    } finally {
      await gatekeeper.stop();
    }
  }, 120_000);

  it('N23: keeps the config and hooks of a repository nested in the workspace read-only, and still lets tools commit there', async () => {
    const workspace = join(temp.path, 'ws');
    const proj = join(workspace, 'proj');
    const deep = join(workspace, 'a', 'deep');
    await mkdir(workspace);
    await initRepository(proj);
    await commitFiles(proj, { 'README.md': 'one\n' });
    await initRepository(deep);
    // cloned with an empty template: no hooks folder for the sandbox to show read-only, until one is made
    await rm(join(deep, '.git', 'hooks'), { recursive: true, force: true });
    const log = join(temp.path, 'fsmonitor-ran');
    const script = [
      `git -C proj config core.fsmonitor "echo FSMONITOR-RAN >> ${log}; false" 2>/dev/null || echo config-refused`,
      `git -C a/deep config core.fsmonitor "echo DEEP-RAN >> ${log}; false" 2>/dev/null || echo deep-refused`,
      `printf '#!/bin/sh\\necho HOOK-RAN >> ${log}\\n' > proj/.git/hooks/pre-commit 2>/dev/null || echo hooks-refused`,
      `(mkdir -p a/deep/.git/hooks && printf '#!/bin/sh\\necho HOOK-RAN >> ${log}\\n' > a/deep/.git/hooks/pre-commit) 2>/dev/null || echo deep-hooks-refused`,
      // a repository moved aside and another put in its place would take the protection with it
      'mv proj/.git proj/.git-aside 2>/dev/null || echo git-pinned',
      'mv proj proj-aside 2>/dev/null || echo repository-pinned',
      'echo two > proj/file && git -C proj add file && git -C proj -c user.name=t -c user.email=t@e commit -qm two && echo committed',
    ].join('; ');
    const shell = await call('shell-exec', { cmd: script }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: true, output: 'config-refused\ndeep-refused\nhooks-refused\ndeep-hooks-refused\ngit-pinned\nrepository-pinned\ncommitted\n' });
    // a person, on the host, outside any sandbox
    for (const repository of [proj, deep]) execFileSync('git', ['status', '--short'], { cwd: repository });
    expect(await exists(log)).toBe(false);
    expect(await readFile(join(proj, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(await exists(join(deep, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await git(proj, 'log', '--format=%s', '-1')).toContain('two');
  }, 120_000);

  it("O3: a tool cannot point a repository's .git/commondir at a config of its own, which git on the host would run", async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    await initRepository(workspace);
    await commitFiles(workspace, { 'README.md': 'one\n' });
    const log = join(temp.path, 'fsmonitor-ran');
    // review O's attack: a copy of the repository with a config of the tool's own, and commondir sending git to it
    const script = [
      'mkdir -p .cache/g && cp -r .git/objects .git/refs .git/HEAD .cache/g/',
      `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = "echo FSMONITOR-RAN >> ${log}; false"\\n' > .cache/g/config`,
      '(echo ../.cache/g > .git/commondir) 2>/dev/null || echo commondir-refused',
      'echo two > file && git add file && git -c user.name=t -c user.email=t@e commit -qm two && echo committed',
    ].join('; ');
    const shell = await call('shell-exec', { cmd: script }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: true, output: 'commondir-refused\ncommitted\n' });
    // a person, on the host, outside any sandbox
    execFileSync('git', ['status', '--short'], { cwd: workspace });
    expect(await exists(log)).toBe(false);
    expect(execFileSync('git', ['rev-parse', '--absolute-git-dir', '--git-common-dir'], { cwd: workspace, encoding: 'utf8' }).split('\n').slice(0, 2).map((line) => line.replace(/\/$/, ''))).toEqual([join(workspace, '.git'), join(workspace, '.git')]);
    expect(await git(workspace, 'log', '--format=%s', '-1')).toContain('two');
  }, 120_000);

  it('O11: keeps the config and hooks of the git folder a .git file names read-only, and still lets tools commit there', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    execFileSync('git', ['init', '-q', `--separate-git-dir=${join(workspace, 'sub-git')}`, join(workspace, 'sub')]);
    const log = join(temp.path, 'hook-ran');
    const script = [
      `(printf '#!/bin/sh\\necho HOOK-RAN >> ${log}\\n' > sub-git/hooks/pre-commit) 2>/dev/null || echo hooks-refused`,
      `git -C sub config core.fsmonitor "echo FSMONITOR-RAN >> ${log}; false" 2>/dev/null || echo config-refused`,
      'echo one > sub/file && git -C sub add file && git -C sub -c user.name=t -c user.email=t@e commit -qm one && echo committed',
    ].join('; ');
    const shell = await call('shell-exec', { cmd: script }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: true, output: 'hooks-refused\nconfig-refused\ncommitted\n' });
    execFileSync('git', ['status', '--short'], { cwd: join(workspace, 'sub') });
    expect(await exists(log)).toBe(false);
    expect(await exists(join(workspace, 'sub-git', 'hooks', 'pre-commit'))).toBe(false);
  }, 120_000);

  it('O6: refuses a workspace whose repository .git is a symbolic link, which the sandbox cannot protect', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(join(workspace, 'sub'), { recursive: true });
    execFileSync('git', ['init', '-q', `--separate-git-dir=${join(workspace, 'sub-git')}`, join(workspace, 'sub')]);
    await rm(join(workspace, 'sub', '.git'));
    await symlink('../sub-git', join(workspace, 'sub', '.git'));
    const shell = await call('shell-exec', { cmd: 'echo "#!/bin/sh" > sub/.git/hooks/pre-commit && echo hooked' }, { env: { HLDP_WORKSPACE: workspace } });
    expect(shell).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
    expect(shell.error).toContain(`${join(workspace, 'sub', '.git')}, a symbolic link the sandbox cannot protect`);
    expect(await exists(join(workspace, 'sub-git', 'hooks', 'pre-commit'))).toBe(false);
  }, 120_000);

  it('N25: the file methods refuse what the sandbox shows read-only: .git at any depth, PATH folders, the tools repository', async () => {
    const workspace = join(temp.path, 'repo-ws');
    await initRepository(workspace);
    await initRepository(join(workspace, 'sub', 'inner'));
    const pathFolder = join(workspace, 'node_modules', '.bin');
    await mkdir(pathFolder, { recursive: true });
    const inWorkspace = { env: { HLDP_WORKSPACE: workspace, PATH: `${pathFolder}${delimiter}${process.env.PATH}` } };
    const refused: [object, RegExp][] = [
      [{ path: '.git/config', content: '[core]\n\tfsmonitor = echo CFG-RAN\n' }, /inside a git repository's \.git/],
      [{ path: '.git/hooks/pre-commit', content: '#!/bin/sh\necho HOOK\n' }, /inside a git repository's \.git/],
      [{ path: 'sub/inner/.git/config', content: '[core]\n\tfsmonitor = x\n', append: true }, /inside a git repository's \.git/],
      [{ path: 'sub/new/.git/hooks/post-checkout', content: 'x', create_dirs: true }, /inside a git repository's \.git/],
      [{ path: 'node_modules/.bin/git', content: '#!/bin/sh\necho PLANTED\n' }, /inside .*node_modules\/\.bin, which the sandbox shows read-only/],
    ];
    for (const [params, reason] of refused) {
      const receipt = await call('file-write', params, inWorkspace);
      expect(receipt, JSON.stringify(params)).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
      expect(receipt.error).toMatch(reason);
      // a complete stored receipt
      expect(receipt.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(await readFile(join(workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(await readFile(join(workspace, 'sub', 'inner', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(await exists(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await exists(join(workspace, 'sub', 'new'))).toBe(false);
    expect(await exists(join(pathFolder, 'git'))).toBe(false);
    // what is the workspace's own is written as before
    expect(await call('file-write', { path: 'notes/out.txt', content: 'ok\n', create_dirs: true }, inWorkspace)).toMatchObject({ ok: true });
    expect(await readFile(join(workspace, 'notes', 'out.txt'), 'utf8')).toBe('ok\n');

    // the tools repository as workspace (`--repo .` in it): no tool registers another
    const tools = join(temp.path, 'tools-repo');
    await cp(join(PACKAGE_ROOT, 'native-repo'), tools, { recursive: true });
    await initRepository(tools);
    await git(tools, 'add', '-A');
    await git(tools, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'tools');
    const registered = await call('file-write', { path: 'tools/evil/TOOL.hdlp', content: 'name: evil\n', create_dirs: true }, { cwd: tools, repo: '.' });
    expect(registered).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
    expect(registered.error).toMatch(/is read-only for tools \(the tools repository/);
    expect(await exists(join(tools, 'tools', 'evil'))).toBe(false);
    // 14 CLI processes (each file-write is a call and its confirm): past 120 s at load 26 on 2 cores
  }, 300_000);
});

// The README's quick start: `npx hldp serve` in this checkout makes it the workspace. The gateway's own files stay
// read-only for the file methods too; the probe file is removed whatever happens.
describeWithBubblewrap('the gateway’s own checkout as workspace (review N, N18, N25)', () => {
  const probe = join(PACKAGE_ROOT, 'dist', `review-n-probe-${process.pid}.txt`);
  afterAll(async () => {
    await rm(probe, { force: true });
  });

  it('refuses a file-write into the package’s own files, and serve warns at start', async () => {
    const folder = await makeTempDir('hldp-own-checkout-');
    env = { HLDP_CACHE_DIR: join(folder.path, 'cache'), HLDP_DATA_DIR: join(folder.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_WORKSPACE: PACKAGE_ROOT };
    try {
      const receipt = await call('file-write', { path: `dist/review-n-probe-${process.pid}.txt`, content: 'agent text\n' });
      expect(receipt).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
      expect(receipt.error).toMatch(/which the sandbox shows read-only to tools/);
      expect(await exists(probe)).toBe(false);
      const serve = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
      try {
        // as root, tools run as nobody and cannot write in the checkout at all, which the warning says instead (review R, R14)
        expect(serve.stderr()).toMatch(/hldp: WARNING: workspace: .* is this gateway's own checkout .*set workspace_root \(or HLDP_WORKSPACE\) to (another folder|a folder of their own)/);
      } finally {
        await serve.stop();
      }
    } finally {
      await folder.cleanup();
    }
  }, 120_000);
});

