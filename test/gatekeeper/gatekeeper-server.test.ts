import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';

let base: string;
let root: string;
let gatekeeper: RunningGatekeeper;

async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${gatekeeper.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gatekeeper.token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'hldp-gatekeeper-')));
  root = join(base, 'root');
  await mkdir(join(root, 'docs'), { recursive: true });
  await writeFile(join(root, 'docs', 'hello.txt'), 'hello file\n');
  await writeFile(join(base, 'outside.txt'), 'secret outside\n');
  await symlink(join(base, 'outside.txt'), join(root, 'link-out'));
  await symlink(join(base, 'missing-target'), join(root, 'dangling-out'));
  await symlink(join(root, 'docs', 'hello.txt'), join(root, 'link-in'));
  gatekeeper = await startGatekeeper({ root, bodyLimitBytes: 1024 });
});
afterAll(async () => {
  await gatekeeper.close();
  await rm(base, { recursive: true, force: true });
});

describe('gatekeeper POST /exec', () => {
  describe('when the method is exec', () => {
    it('returns the raw result of sh -c with every field', async () => {
      const { status, json } = await post({ method: 'exec', params: { cmd: 'echo hello' } });
      expect(status).toBe(200);
      expect(json).toEqual({
        ok: true,
        output: 'hello\n',
        error: null,
        stderr: '',
        code: null,
        exit_code: 0,
        signal: null,
        timed_out: false,
        output_bytes: 6,
        cut_bytes: 0,
        duration_ms: expect.any(Number),
      });
    });

    it('returns the command’s full stderr when it fails', async () => {
      const { json } = await post({ method: 'exec', params: { cmd: 'ls /no/such/place' } });
      expect(json).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 2 });
      expect(json.error).toMatch(/^ls: .*\/no\/such\/place.*No such file or directory\n$/);
      expect(json.stderr).toBe(json.error);
    });

    it('returns TIMEOUT under the requested timeout_ms', async () => {
      const { json } = await post({ method: 'exec', params: { cmd: 'sleep 30' }, timeout_ms: 200 });
      expect(json).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true });
    });

    it('returns output within the requested max_output_bytes', async () => {
      const { json } = await post({ method: 'exec', params: { cmd: 'seq 1 10000' }, max_output_bytes: 128 });
      expect(Buffer.byteLength(json.output as string)).toBeLessThanOrEqual(128);
      expect(json.cut_bytes).toBeGreaterThan(0);
    });

    it('returns a run inside the given cwd, and refuses one outside the root', async () => {
      expect((await post({ method: 'exec', params: { cmd: 'pwd -P', cwd: 'docs' } })).json.output).toBe(`${join(root, 'docs')}\n`);
      expect((await post({ method: 'exec', params: { cmd: 'pwd', cwd: '..' } })).json).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    });

    it('returns an environment without the gatekeeper’s own variables', async () => {
      process.env.HLDP_GATEKEEPER_TEST_SECRET = 'gatekeeper-secret-value';
      try {
        const { json } = await post({ method: 'exec', params: { cmd: 'env' } });
        expect(json.output).not.toContain('gatekeeper-secret-value');
        expect(json.output).not.toContain(gatekeeper.token);
      } finally {
        delete process.env.HLDP_GATEKEEPER_TEST_SECRET;
      }
    });
  });

  describe('when a file method is called', () => {
    it.each([
      ['a file', { path: 'docs/hello.txt' }, 'hello file\n'],
      ['a file through a symlink inside the root', { path: 'link-in' }, 'hello file\n'],
      ['a file as base64', { path: 'docs/hello.txt', encoding: 'base64' }, Buffer.from('hello file\n').toString('base64')],
      ['an absolute path inside the root', { path: '/ROOT/docs/hello.txt' }, 'hello file\n'],
    ])('read_file returns %s raw', async (_case, params, output) => {
      const path = params.path.replace('/ROOT', root);
      const { json } = await post({ method: 'read_file', params: { ...params, path } });
      expect(json).toMatchObject({ ok: true, output, output_bytes: 11, cut_bytes: 0 });
    });

    it.each([
      ['..', '../outside.txt'],
      ['an absolute path outside', '/etc/passwd'],
      ['a symlink pointing outside', 'link-out'],
      ['.. hidden in the middle', 'docs/../../outside.txt'],
    ])('read_file refuses %s with PATH_OUTSIDE_ROOT', async (_case, path) => {
      const { status, json } = await post({ method: 'read_file', params: { path } });
      expect(status).toBe(200);
      expect(json).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT', output: '' });
      expect(json.error).toContain('outside the root');
    });

    it('read_file returns IO_ERROR for a missing file and for a folder', async () => {
      expect((await post({ method: 'read_file', params: { path: 'nope.txt' } })).json).toMatchObject({ ok: false, code: 'IO_ERROR' });
      expect((await post({ method: 'read_file', params: { path: 'docs' } })).json).toMatchObject({ ok: false, code: 'IO_ERROR', error: expect.stringContaining('list_dir') });
    });

    it('write_file creates, replaces and appends, reporting the bytes written', async () => {
      const first = await post({ method: 'write_file', params: { path: 'new/notes.txt', content: 'one\n', create_dirs: true } });
      expect(JSON.parse(first.json.output as string)).toEqual({ path: 'new/notes.txt', bytes_written: 4, appended: false });
      await post({ method: 'write_file', params: { path: 'new/notes.txt', content: 'two\n', append: true } });
      expect(await readFile(join(root, 'new', 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
      await post({ method: 'write_file', params: { path: 'new/notes.txt', content: 'three\n' } });
      expect(await readFile(join(root, 'new', 'notes.txt'), 'utf8')).toBe('three\n');
    });

    it('write_file returns IO_ERROR naming create_dirs when the folder is missing', async () => {
      const { json } = await post({ method: 'write_file', params: { path: 'missing/dir/x.txt', content: 'x' } });
      expect(json).toMatchObject({ ok: false, code: 'IO_ERROR', error: expect.stringContaining('create_dirs: true') });
    });

    it.each([
      ['..', '../written.txt', 'written.txt'],
      ['an absolute path outside', 'ABSOLUTE', 'absolute-written.txt'],
      ['a symlink pointing outside', 'link-out', 'outside.txt'],
      ['a dangling symlink pointing outside', 'dangling-out', 'missing-target'],
      ['a new folder under ..', '../newdir/x.txt', 'newdir'],
    ])('write_file refuses %s and writes nothing', async (_case, requested, target) => {
      const path = requested === 'ABSOLUTE' ? join(base, 'absolute-written.txt') : requested;
      const { json } = await post({ method: 'write_file', params: { path, content: 'pwned', create_dirs: true } });
      expect(json).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
      expect(await readFile(join(base, 'outside.txt'), 'utf8')).toBe('secret outside\n');
      await expect(readFile(join(base, 'missing-target'))).rejects.toThrow('ENOENT');
      // and the file this case's write would have reached does not exist
      if (target !== 'outside.txt') await expect(readFile(join(base, target))).rejects.toThrow('ENOENT');
    });

    it('list_dir returns the entries with their types, symlinks not followed', async () => {
      const { json } = await post({ method: 'list_dir', params: { path: '.' } });
      const entries = JSON.parse(json.output as string) as Array<{ name: string; type: string }>;
      expect(entries.map(({ name, type }) => [name, type])).toEqual(
        expect.arrayContaining([['docs', 'dir'], ['link-out', 'symlink'], ['dangling-out', 'symlink']]),
      );
    });

    it('list_dir refuses a folder outside the root', async () => {
      expect((await post({ method: 'list_dir', params: { path: '..' } })).json).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    });
  });

  describe('when the request is not acceptable', () => {
    it.each([
      ['no token', { authorization: '' }],
      ['a wrong token', { authorization: 'Bearer wrong-token' }],
      ['another scheme', { authorization: 'Basic abc' }],
    ])('returns 401 for %s', async (_case, headers) => {
      const { status, json } = await post({ method: 'exec', params: { cmd: 'touch ran' } }, headers);
      expect(status).toBe(401);
      expect(json).toEqual({ code: 'UNAUTHORIZED', error: expect.stringContaining('Authorization: Bearer') });
    });

    it('returns 400 saying what is wrong with malformed JSON', async () => {
      const { status, json } = await post('{"method": "exec",');
      expect(status).toBe(400);
      expect(json).toMatchObject({ code: 'MALFORMED_JSON', error: expect.stringContaining('not valid JSON') });
      expect(JSON.stringify(json)).not.toMatch(/at .*\.js:\d+/);
    });

    it('returns 400 asking for JSON when the body is sent as another type', async () => {
      const { status, json } = await post(JSON.stringify({ method: 'exec', params: { cmd: 'true' } }), { 'content-type': 'text/plain' });
      expect(status).toBe(400);
      expect(json).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining('application/json') });
    });

    it('returns 413 for a body over the limit', async () => {
      const { status, json } = await post({ method: 'write_file', params: { path: 'big.txt', content: 'x'.repeat(4096) } });
      expect(status).toBe(413);
      expect(json).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: expect.stringContaining('1024 bytes') });
    });

    it.each(['rm_rf', 'toString', '__proto__', 'constructor'])('returns 400 listing the methods for the unknown method %s', async (method) => {
      const { status, json } = await post({ method, params: {} });
      expect(status).toBe(400);
      expect(json).toEqual({ code: 'UNKNOWN_METHOD', error: `unknown method '${method}'; use one of: exec, read_file, read_bytes, write_file, list_dir` });
    });

    it.each([
      ['no method', { params: {} }, 'INVALID_REQUEST'],
      ['params that are not an object', { method: 'exec', params: 'ls' }, 'INVALID_REQUEST'],
      ['a negative timeout', { method: 'exec', params: { cmd: 'ls' }, timeout_ms: -1 }, 'INVALID_REQUEST'],
      ['exec without cmd', { method: 'exec', params: {} }, 'INVALID_PARAMS'],
      ['an unknown param', { method: 'read_file', params: { path: 'a', mode: 'x' } }, 'INVALID_PARAMS'],
    ])('returns 400 for %s', async (_case, body, code) => {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json.code).toBe(code);
    });

    it('returns a JSON 404 naming the routes for an unknown route', async () => {
      const response = await fetch(`${gatekeeper.url}/nope`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ code: 'NOT_FOUND', error: expect.stringContaining('POST /exec') });
    });
  });
});

describe('startGatekeeper', () => {
  describe('when the root does not exist', () => {
    it('throws naming the root to create', async () => {
      await expect(startGatekeeper({ root: join(tmpdir(), 'hldp-no-such-root') })).rejects.toThrow(/does not exist/);
    });
  });

  describe('when it logs requests', () => {
    it('returns log lines with route and status but never the token or the body', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
      const logged = await startGatekeeper({ root, logger });
      try {
        const response = await fetch(`${logged.url}/exec`, {
          method: 'POST',
          headers: { authorization: `Bearer ${logged.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'exec', params: { cmd: 'echo body-marker-value' } }),
        });
        // the whole answer has arrived, so the server has finished and logged it
        await response.text();
        const log = lines.join('');
        expect(log).toContain('"path":"/exec"');
        expect(log).toContain('"status":200');
        expect(log).not.toContain(logged.token);
        expect(log).not.toContain('body-marker-value');
      } finally {
        await logged.close();
      }
    });
  });

  describe('when a token is given', () => {
    it('returns a server that accepts exactly that token', async () => {
      const own = await startGatekeeper({ root, token: 'a-chosen-token-of-some-length' });
      try {
        expect(own.token).toBe('a-chosen-token-of-some-length');
        const response = await fetch(`${own.url}/exec`, {
          method: 'POST',
          headers: { authorization: 'Bearer a-chosen-token-of-some-length', 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'list_dir', params: {} }),
        });
        expect(response.status).toBe(200);
      } finally {
        await own.close();
      }
    });
  });
});
