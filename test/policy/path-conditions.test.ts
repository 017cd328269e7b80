import { chmod, mkdir, realpath, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, PRINCIPALS_YAML, startGateway } from './support.js';

// A path condition judges the path the tool will reach, however the caller spells it: one real `hldp serve`
// whose embedded gatekeeper's root is the workspace; the workspace is reached through a symlink as well.
let gateway: { url: string; service: ServiceProcess };
let workspace: string;
let realWorkspace: string;
let linkedWorkspace: string;
let cleanup: () => Promise<void>;

const GUARD = [
  'name: guard', 'author: TEST-001', 'why: agents never read secrets; writes outside agent/ need a person',
  'approval:',
  '  - tools: [file-read]',
  '    when: { path: { glob: "secrets/**" } }',
  '    decision: deny',
  '    reason: never read secrets',
  '  - tools: [file-write]',
  '    when: { path: { glob: "agent/**" } }',
  '    decision: allow',
  '  - tools: [file-write]',
  '    decision: approve',
  '  - tools: [catf]',
  '    when: { path: { glob: "secrets/**" } }',
  '    decision: deny',
  '    reason: never read secrets',
  '  - tools: [touchf]',
  '    when: { path: { glob: "agent/**" } }',
  '    decision: allow',
  '  - tools: [touchf]',
  '    decision: approve',
  '  - tools: [catd]',
  '    when: { path: { glob: "secrets/**" } }',
  '    decision: deny',
  '    reason: never read secrets',
  '  - tools: [touchd]',
  '    when: { path: { glob: "agent/**" } }',
  '    decision: allow',
  '  - tools: [touchd]',
  '    decision: approve',
].join('\n');

// shell tools whose programs resolve the path themselves, as the kernel does: a symlink before a `..` after it
const shellTool = (name: string, program: string) => [
  `name: ${name}`, `display: ${name}`, `intent: ${program} one file of the workspace`, 'method: run', 'executor: shell',
  'params_schema:', '  path: { type: string, required: true, pattern: "^[^-]" }',
  'shell:', `  argv: [${program}, "{path}"]`, 'author: TEST-001', 'created: 2026-12-04', 'why: a path-condition test tool',
].join('\n');

// the same, run in a folder a param names (review Q, Q9): `{path: key, dir: secrets}` is secrets/key
const cwdTool = (name: string, program: string) => [
  `name: ${name}`, `display: ${name}`, `intent: ${program} one file of a folder`, 'method: run', 'executor: shell',
  'params_schema:', '  path: { type: string, required: true, pattern: "^[^-]" }', '  dir: { type: string, default: "." }',
  'shell:', `  argv: [${program}, "{path}"]`, '  cwd: "{dir}"', 'author: TEST-001', 'created: 2026-12-04', 'why: a path-condition test tool',
].join('\n');

beforeAll(async () => {
  const made = await policyRepository({
    'policies/guard.hdlp': GUARD, 'tools/catf/TOOL.hdlp': shellTool('catf', 'cat'), 'tools/touchf/TOOL.hdlp': shellTool('touchf', 'touch'),
    'tools/catd/TOOL.hdlp': cwdTool('catd', 'cat'), 'tools/touchd/TOOL.hdlp': cwdTool('touchd', 'touch'),
  });
  workspace = join(made.temp.path, 'workspace');
  await mkdir(join(workspace, 'secrets'), { recursive: true });
  await mkdir(join(workspace, 'public'), { recursive: true });
  await writeFile(join(workspace, 'secrets', 'key'), 'TOP-SECRET\n');
  await writeFile(join(workspace, 'public', 'notes'), 'hello\n');
  // symlinks inside the workspace, as a repository or a tool (ln -s) may make them
  await symlink('secrets', join(workspace, 'link'));
  await mkdir(join(workspace, 'agent'), { recursive: true });
  // the folder agents write: a root gateway's file methods write as sandbox.run_as (nobody), as its tools do (review O, O5)
  await chmod(join(workspace, 'agent'), 0o777);
  await symlink('../secrets', join(workspace, 'agent', 'out'));
  // a symlink into a subfolder of the protected tree (a checkout's `current -> releases/v2`): `sub/../key` is secrets/key
  await mkdir(join(workspace, 'secrets', 'sub'));
  await symlink('secrets/sub', join(workspace, 'sub'));
  await symlink('../secrets/sub', join(workspace, 'agent', 'in-secrets'));
  realWorkspace = await realpath(workspace);
  linkedWorkspace = join(made.temp.path, 'linked-workspace');
  await symlink(workspace, linkedWorkspace);
  const started = await startGateway(made.repo, made.temp.path, { env: { HLDP_WORKSPACE: linkedWorkspace }, principals: PRINCIPALS_YAML.replace('shell-exec]', 'shell-exec, catf, touchf, catd, touchd]') });
  gateway = started;
  cleanup = async () => {
    await started.service.stop();
    await made.temp.cleanup();
  };
});
afterAll(() => cleanup());

const read = (path: string) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path } } });
const write = (path: string) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'x\n', create_dirs: true } } });

describe('a deny rule with a path glob', () => {
  describe('when the caller spells a path inside the root another way', () => {
    it.each([
      ['relative', () => 'secrets/key'],
      ['absolute through the configured root', () => `${linkedWorkspace}/secrets/key`],
      ['absolute through the resolved root', () => `${realWorkspace}/secrets/key`],
      ['with ./', () => './secrets/key'],
      ['with a detour', () => 'a/../secrets/key'],
      ['with a doubled slash', () => 'secrets//key'],
      ['absolute with . and ..', () => `${realWorkspace}/./public/../secrets//key`],
      ['as the folder with a trailing slash', () => 'secrets/'],
      ['as the folder, absolute with a trailing slash', () => `${realWorkspace}/secrets/`],
    ])('denies it (%s), and nothing is read', async (_, spelling) => {
      const answer = await read(spelling());
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ ok: false, code: 'DENIED', output: '', error: expect.stringContaining('never read secrets (policies/guard.hdlp:') });
    });
  });

  it('denies a path through a symlink inside the root that leads where the glob names (found in review)', async () => {
    for (const path of ['link/key', `${realWorkspace}/link/key`, 'agent/out/key']) {
      expect((await read(path)).body, path).toMatchObject({ ok: false, code: 'DENIED', output: '' });
    }
  });

  it('denies a path whose `..` comes after a symlink, resolved as the program resolves it: the link first (review P, P5)', async () => {
    const call = (path: string) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'catf', params: { path } } });
    expect((await call('secrets/key')).body).toMatchObject({ ok: false, code: 'DENIED', output: '' });
    const detour = await call('sub/../key');
    expect(detour.body).toMatchObject({ ok: false, code: 'DENIED', output: '' });
    expect(JSON.stringify(detour.body)).not.toContain('TOP-SECRET');
    expect((await call('public/../public/notes')).body).toMatchObject({ ok: true, output: 'hello\n' });
  });

  it('judges a relative path of a shell tool whose cwd a param names where the program opens it (review Q, Q9)', async () => {
    const call = (params: Record<string, string>) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'catd', params } });
    expect((await call({ path: 'secrets/key' })).body).toMatchObject({ ok: false, code: 'DENIED', output: '' });
    const moved = await call({ path: 'key', dir: 'secrets' });
    expect(moved.body).toMatchObject({ ok: false, code: 'DENIED', output: '', error: expect.stringContaining('never read secrets (policies/guard.hdlp:') });
    expect(JSON.stringify(moved.body)).not.toContain('TOP-SECRET');
    // the cwd spelt another way, through a symlink, or with a `..` after a symlink in it: resolved as the kernel does
    for (const params of [{ path: 'key', dir: 'public/../secrets' }, { path: 'key', dir: 'link' }, { path: '../key', dir: 'sub' }, { path: 'key', dir: `${realWorkspace}/secrets` }]) {
      const answer = await call(params);
      expect(answer.body, JSON.stringify(params)).toMatchObject({ ok: false, code: 'DENIED', output: '' });
      expect(JSON.stringify(answer.body)).not.toContain('TOP-SECRET');
    }
    // what the rule does not cover still runs, relative to the cwd or absolute
    expect((await call({ path: 'notes', dir: 'public' })).body).toMatchObject({ ok: true, output: 'hello\n' });
    expect((await call({ path: `${realWorkspace}/public/notes`, dir: 'secrets' })).body).toMatchObject({ ok: true, output: 'hello\n' });
  });

  it('denies a path that leaves the root, which it cannot judge', async () => {
    expect((await read('/etc/hostname')).body).toMatchObject({ ok: false, code: 'DENIED' });
    expect((await read('../workspace/secrets/key')).body).toMatchObject({ ok: false, code: 'DENIED' });
  });

  it('still runs a read the rule does not cover, absolute or relative', async () => {
    expect((await read('public/notes')).body).toMatchObject({ ok: true, output: 'hello\n' });
    expect((await read(`${realWorkspace}/public/notes`)).body).toMatchObject({ ok: true, output: 'hello\n' });
  });
});

describe('an allow rule with a path glob', () => {
  it('runs an absolute write inside its glob directly, as the relative one', async () => {
    const direct = await write(`${realWorkspace}/agent/absolute.txt`);
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ ok: true, approval: null });
  });

  it('does not allow a write through a symlink in its glob that leads out of it: a person is asked (found in review)', async () => {
    const linked = await write('agent/out/planted.txt');
    expect(linked.status).toBe(202);
    expect(linked.body).toMatchObject({ status: 'approval_required' });
  });

  it('does not allow a write whose `..` after a symlink in its glob lands outside it: a person is asked (review P, P5)', async () => {
    const call = (path: string) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'touchf', params: { path } } });
    const detour = await call('agent/in-secrets/../planted');
    expect(detour.status).toBe(202);
    expect(detour.body).toMatchObject({ status: 'approval_required' });
    await expect(stat(join(workspace, 'secrets', 'planted'))).rejects.toThrow(/ENOENT/);
    // inside its glob the call runs at once (whether run_as may write there is the sandbox's matter, not the rule's)
    const direct = await call('agent/made-directly');
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ tool: 'touchf', approval: null });
  });

  it('judges a relative path of a shell tool whose cwd a param names where the program opens it (review Q, Q9)', async () => {
    const call = (params: Record<string, string>) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'touchd', params } });
    const moved = await call({ path: 'agent/planted', dir: 'secrets' });
    expect(moved.status).toBe(202);
    expect(moved.body).toMatchObject({ status: 'approval_required' });
    await expect(stat(join(workspace, 'secrets', 'agent', 'planted'))).rejects.toThrow(/ENOENT/);
    // inside the allow rule's glob once placed in the cwd: it runs at once
    const inside = await call({ path: 'made-in-cwd', dir: 'agent' });
    expect(inside.status).toBe(200);
    expect(inside.body).toMatchObject({ tool: 'touchd', ok: true, approval: null });
    await stat(join(workspace, 'agent', 'made-in-cwd'));
  });

  it('does not let a write that climbs out through it', async () => {
    const climbing = await write('agent/../../outside.txt');
    expect(climbing.status).toBe(202);
    expect(climbing.body).toMatchObject({ status: 'approval_required' });
  });
});
