import { execFileSync } from 'node:child_process';
import { access, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isGitFolder } from '../../src/sandbox/git-folder.js';
import { git, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// What a repository's own settings send git to (core.hooksPath, include.path), shared hooks behind a symbolic link,
// and which folders are git folders at all: the leftovers of review P's git-folder rules. Each case is a real `hldp
// call` (and `hldp confirm` for file-write) by a tool, then the owner's own git on the host.

const exists = (path: string) => access(path).then(() => true, () => false);
const IDENTITY = ['-c', 'user.name=owner', '-c', 'user.email=owner@example.com'];

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let log: string;

interface Receipt {
  ok: boolean;
  code: string | null;
  error: string | null;
  output: string;
}

async function call(tool: string, params: object, workspace: string): Promise<Receipt> {
  const cliEnv = { ...env, HLDP_WORKSPACE: workspace };
  const run = await runCli(['call', tool, '--json', '--params', JSON.stringify(params)], { env: cliEnv, timeoutMs: 150_000 });
  const answer = JSON.parse(run.stdout) as Receipt & { status?: string; token?: string };
  if (answer.status !== 'confirmation_required') return answer;
  const confirmed = await runCli(['confirm', answer.token!, '--json'], { env: cliEnv, timeoutMs: 150_000 });
  return JSON.parse(confirmed.stdout) as Receipt;
}

/** The owner, on the host, outside any sandbox. */
const owner = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const hook = (name: string) => `printf '#!/bin/sh\\necho ${name}-RAN >> ${log}\\n'`;

describe('isGitFolder', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-git-folder-');
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  /** Whether git itself opens the folder as a git folder: asked from inside it, with nothing above it to find. */
  const gitOpens = (folder: string): boolean => {
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, GIT_CEILING_DIRECTORIES: temp.path, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
      for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE']) delete env[name];
      const found = execFileSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: folder, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env });
      return found.trim() === folder;
    } catch {
      return false;
    }
  };

  const layouts: [string, Record<string, string | null>][] = [
    ['a plain folder holding a config like git’s (review P leftover)', { config: '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' }],
    ['HEAD, objects/ and refs/', { HEAD: 'ref: refs/heads/main\n', 'objects/': null, 'refs/': null }],
    ['a detached HEAD', { HEAD: `${'a'.repeat(40)}\n`, 'objects/': null, 'refs/': null }],
    ['a HEAD of "ref:" and a tab', { HEAD: 'ref:\trefs/heads/main\n', 'objects/': null, 'refs/': null }],
    ['HEAD that names no ref', { HEAD: 'ref: heads/main\n', 'objects/': null, 'refs/': null }],
    ['HEAD and objects/ without refs/', { HEAD: 'ref: refs/heads/main\n', 'objects/': null }],
    ['HEAD and refs/ without objects/', { HEAD: 'ref: refs/heads/main\n', 'refs/': null }],
    ['objects/ and refs/ without HEAD', { 'objects/': null, 'refs/': null }],
    ['HEAD and a commondir naming a folder with objects/ and refs/', { HEAD: 'ref: refs/heads/main\n', commondir: '../common\n', '../common/objects/': null, '../common/refs/': null }],
    ['HEAD and a commondir naming a folder without them', { HEAD: 'ref: refs/heads/main\n', commondir: '../common\n', '../common/': null }],
  ];

  it.each(layouts)('agrees with git on %s', async (_, files) => {
    const folder = join(temp.path, 'f');
    await mkdir(folder);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) await mkdir(join(folder, path), { recursive: true });
      else await writeFile(join(folder, path), content);
    }
    expect(isGitFolder(folder)).toBe(gitOpens(folder));
  });

  it('still finds a git folder an earlier launch guarded (its config beside a commondir) once HEAD, objects and refs are moved aside', async () => {
    const bare = await initRepository(join(temp.path, 'origin.git'), { bare: true });
    await writeFile(join(bare, 'commondir'), '.\n');
    for (const name of ['HEAD', 'objects', 'refs']) await rename(join(bare, name), join(bare, `${name}.aside`));
    expect(isGitFolder(bare)).toBe(true);
  });
});

describeWithBubblewrap('what a repository’s own settings send git to, and shared hooks (review P leftovers)', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-git-settings-');
    log = join(temp.path, 'ran');
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root' };
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('keeps the hooks folder core.hooksPath names (.githooks, made when missing) read-only; the owner’s commit runs nothing planted', async () => {
    const workspace = join(temp.path, 'ws');
    const proj = await initRepository(join(workspace, 'proj'));
    const other = await initRepository(join(workspace, 'other'));
    await git(proj, 'config', 'core.hooksPath', '.githooks');
    await mkdir(join(proj, '.githooks'));
    // a hooks folder that does not exist yet: a tool must not be the one to make it
    await git(other, 'config', 'core.hooksPath', 'scripts/hooks');
    await mkdir(join(other, 'scripts'));
    const script = [
      `(${hook('HOOKSPATH')} > proj/.githooks/post-commit && chmod +x proj/.githooks/post-commit) 2>/dev/null || echo hooks-refused`,
      `(mkdir -p other/scripts/hooks && ${hook('MISSING-HOOKSPATH')} > other/scripts/hooks/post-commit && chmod +x other/scripts/hooks/post-commit) 2>/dev/null || echo missing-refused`,
      `(mv proj/.githooks proj/aside && mkdir proj/.githooks && ${hook('MOVED')} > proj/.githooks/post-commit) 2>/dev/null || echo move-refused`,
      'echo work > proj/file && git -C proj add file && git -C proj -c user.name=t -c user.email=t@e commit -qm tool && echo committed',
    ].join('; ');
    expect(await call('shell-exec', { cmd: script }, workspace)).toMatchObject({ ok: true, output: 'hooks-refused\nmissing-refused\nmove-refused\ncommitted\n' });
    const written = await call('file-write', { path: 'proj/.githooks/post-commit', content: '#!/bin/sh\necho X\n' }, workspace);
    expect(written).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    owner(proj, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'one');
    owner(other, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'one');
    expect(await exists(log)).toBe(false);
    expect((await stat(join(other, 'scripts', 'hooks'))).isDirectory()).toBe(true);
  }, 300_000);

  it('keeps a config file the repository’s config includes read-only; the owner’s git status runs nothing planted', async () => {
    const workspace = join(temp.path, 'ws');
    const proj = await initRepository(join(workspace, 'proj'));
    await writeFile(join(proj, 'team.gitconfig'), '[user]\n\tname = team\n');
    await git(proj, 'config', 'include.path', '../team.gitconfig');
    const script = `printf '[core]\\n\\tfsmonitor = "echo INCLUDED-FSMONITOR-RAN >> ${log}; false"\\n' >> proj/team.gitconfig 2>/dev/null || echo include-refused`;
    expect(await call('shell-exec', { cmd: script }, workspace)).toMatchObject({ ok: true, output: 'include-refused\n' });
    owner(proj, 'status', '--short');
    expect(await exists(log)).toBe(false);
    expect(await readFile(join(proj, 'team.gitconfig'), 'utf8')).toBe('[user]\n\tname = team\n');
  }, 300_000);

  it('runs tools beside shared hooks (.git/hooks -> ../.githooks): the hooks and the git folder read-only, so the link stays; the owner’s commit runs nothing planted', async () => {
    const workspace = join(temp.path, 'ws');
    const proj = await initRepository(join(workspace, 'proj'));
    await mkdir(join(proj, '.githooks'));
    await rm(join(proj, '.git', 'hooks'), { recursive: true });
    await symlink('../.githooks', join(proj, '.git', 'hooks'));
    const script = [
      `(${hook('SHARED')} > proj/.githooks/post-commit && chmod +x proj/.githooks/post-commit) 2>/dev/null || echo hooks-refused`,
      `(cd proj/.git && rm hooks && mkdir hooks && ${hook('REPLACED-HOOK')} > hooks/post-commit && chmod +x hooks/post-commit) 2>/dev/null || echo link-kept`,
      'git -C proj status --short && echo status-ran',
    ].join('; ');
    expect(await call('shell-exec', { cmd: script }, workspace)).toMatchObject({ ok: true, output: 'hooks-refused\nlink-kept\nstatus-ran\n' });
    const written = await call('file-write', { path: 'proj/.githooks/post-commit', content: '#!/bin/sh\necho X\n' }, workspace);
    expect(written).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    owner(proj, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'one');
    expect(await exists(log)).toBe(false);
    expect(await exists(join(proj, '.githooks', 'post-commit'))).toBe(false);
  }, 300_000);

  it('leaves a plain folder holding a file named config as it is: writable, nothing made in it', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(join(workspace, 'settings'), { recursive: true });
    await writeFile(join(workspace, 'settings', 'config'), '[core]\n\tbare = false\n');
    expect(await call('shell-exec', { cmd: 'echo "[core]" > settings/config && ls -A settings' }, workspace)).toMatchObject({ ok: true, output: 'config\n' });
    expect(await readFile(join(workspace, 'settings', 'config'), 'utf8')).toBe('[core]\n');
  }, 300_000);

  it('keeps guarding a bare repository whose HEAD a tool moved aside at an earlier launch', async () => {
    const workspace = join(temp.path, 'ws');
    const origin = await initRepository(join(workspace, 'origin.git'), { bare: true });
    expect(await call('shell-exec', { cmd: 'mv origin.git/HEAD origin.git/HEAD.aside && echo moved' }, workspace)).toMatchObject({ ok: true, output: 'moved\n' });
    const script = `(${hook('BARE')} > origin.git/hooks/post-receive && chmod +x origin.git/hooks/post-receive) 2>/dev/null || echo hooks-refused`;
    expect(await call('shell-exec', { cmd: script }, workspace)).toMatchObject({ ok: true, output: 'hooks-refused\n' });
    expect(await exists(join(origin, 'hooks', 'post-receive'))).toBe(false);
  }, 300_000);
});
