import { chmod, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DeclaredSandbox } from '../../src/core/index.js';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap, giveToNobody } from './support/bubblewrap.js';

let temp: { path: string; cleanup: () => Promise<void> };
let sandbox: Sandbox;
let cache: string;
let repository: string;
let workspace: string;

// an environment no shell can export sends a run down the cold path (bubblewrap spawned for it), else a waiting launcher takes it
function sh(script: string, declared: DeclaredSandbox, warm = true): ProcessSpec {
  return { file: 'sh', args: ['-c', script], cwd: workspace, env: minimalEnvironment(warm ? {} : { 'NOT-AN-IDENTIFIER': '1' }), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace, declared } };
}

// a regression: the guarded paths were hidden or made read-only only where they sat inside something exposed, so a
// TOOL.hdlp declaring a path under the gateway's cache (or a symlink into it) had it bound: read and written with real bwrap
describeWithBubblewrap('declared paths into the gateway’s hidden and read-only folders', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    cache = join(temp.path, 'cache');
    repository = join(temp.path, 'repository');
    workspace = join(temp.path, 'workspace');
    await mkdir(join(cache, 'index'), { recursive: true });
    await mkdir(join(repository, '.git'), { recursive: true });
    await mkdir(workspace);
    await writeFile(join(cache, 'secret'), 'cache-secret-value');
    await writeFile(join(repository, '.git', 'config'), 'original');
    // a committed symlink in the workspace that points into the cache
    await symlink(cache, join(workspace, 'link'));
    sandbox = await createSandbox({ mode: 'auto', hide: [cache], protect: [repository], limits: false });
    // a root gateway's tools run as nobody (sandbox.run_as): they must reach these folders as nobody would
    if (process.getuid?.() === 0) await chmod(temp.path, 0o755);
  });
  afterAll(async () => {
    sandbox?.close();
    await temp?.cleanup();
  });

  const reader = () => `cat ${join(cache, 'secret')} link/secret 2>/dev/null; echo written > ${join(cache, 'index', 'planted.v8')}; echo written > link/planted; echo changed > ${join(repository, '.git', 'config')}; true`;

  for (const warm of [false, true]) {
    it(`refuses a tool that declares a path under the cache, directly or by a symlink, and nothing is read or written (${warm ? 'waiting launcher' : 'cold start'})`, async () => {
      const declarations: [DeclaredSandbox, string][] = [
        [{ filesystem: { read: [join(cache, 'secret')] } }, join(cache, 'secret')],
        [{ filesystem: { write: [join(cache, 'index')] } }, join(cache, 'index')],
        [{ filesystem: { write: [join(cache, 'index', 'not-there-yet', 'deeper')] } }, 'not-there-yet'],
        [{ filesystem: { read: ['link'] } }, `really ${cache}`],
        [{ filesystem: { write: ['link/index'] } }, `really ${join(cache, 'index')}`],
        [{ filesystem: { write: [join(repository, '.git')] } }, `read-only path ${repository}`],
      ];
      for (const [declared, named] of declarations) {
        const result = await runProcess(sh(reader(), declared, warm));
        expect(result).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
        expect(JSON.stringify(result)).toContain(named);
        expect(JSON.stringify(result)).not.toContain('cache-secret-value');
      }
      expect((await readdir(join(cache, 'index'))).sort()).toEqual([]);
      expect(await readdir(cache)).not.toContain('planted');
      expect(await readFile(join(repository, '.git', 'config'), 'utf8')).toBe('original');
    });
  }

  it('lets a tool whose workspace is inside the read-only repository write what it declares inside that workspace', async () => {
    const inner = join(repository, 'tools', 'builder');
    await mkdir(join(inner, 'out'), { recursive: true });
    // a declared writable path is the operator's to give to a root gateway's run_as user
    if (process.getuid?.() === 0) await giveToNobody(join(inner, 'out'));
    const result = await runProcess({ ...sh('echo built > out/artifact', { filesystem: { write: ['out'] } }), cwd: inner, isolation: { sandbox, workspace: inner, declared: { filesystem: { write: ['out'] } } } });
    expect(result).toMatchObject({ ok: true });
    expect(await readFile(join(inner, 'out', 'artifact'), 'utf8')).toBe('built\n');
  });

  it('still hides a guarded folder inside a declared writable one, and lets a tool read inside the read-only one', async () => {
    // the folders are in the host's /tmp: the operator lists them in the ceiling (review T, T4)
    const allowing = await createSandbox({ mode: 'auto', hide: [cache], protect: [repository], limits: false, ceiling: { writableRoots: [temp.path], readableRoots: [temp.path] } });
    const spec = sh(`cat ${join(cache, 'secret')} 2>/dev/null; ls -A ${cache}; cat ${join(repository, '.git', 'config')}; echo changed > ${join(repository, '.git', 'config')} 2>/dev/null; true`, { filesystem: { write: [temp.path], read: [join(repository, '.git')] } });
    const result = await runProcess({ ...spec, isolation: { ...spec.isolation!, sandbox: allowing } }).finally(() => allowing.close());
    expect(result).toMatchObject({ ok: true });
    expect(result.output).not.toContain('cache-secret-value');
    expect(result.output).toContain('original');
    expect(await readFile(join(repository, '.git', 'config'), 'utf8')).toBe('original');
  });
});
