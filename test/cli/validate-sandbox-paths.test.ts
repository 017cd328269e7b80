import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-sandbox-paths-');

/** A shell tool declaring these `sandbox.filesystem` lists, one path a line (the first read path on line 14). */
const shellTool = (name: string, read: string[], write: string[]): string =>
  `${makeToolYaml(name, { executor: 'shell', method: 'run', shell: '{ argv: [echo, hi] }' })}sandbox:\n  filesystem:\n    read:\n${read.map((path) => `      - ${path}\n`).join('')}    write:\n${write.map((path) => `      - ${path}\n`).join('')}`;

describe('hldp validate', () => {
  describe('when a tool declares sandbox paths the sandbox refuses', () => {
    it('reports each at its line, with the reason a call would be refused for', async () => {
      const env = folder.cliEnv();
      await writeFiles(folder.path, {
        'tools/paths/TOOL.hdlp': shellTool('paths', ['/', '/srv/data'], ['/proc/sys', '~/.ssh', '/usr/local/bin', join(env.HLDP_CACHE_DIR!, 'x'), '/srv/out']),
      });
      const run = await runCli(['validate', folder.path, '--json'], { env, cwd: folder.path });
      expect(run.code).toBe(1);
      const errors = JSON.parse(run.stdout).errors as Array<{ line: number; code: string; message: string }>;
      expect(errors.map(({ line, code }) => ({ line, code }))).toEqual([14, 17, 18, 19, 20].map((line) => ({ line, code: 'REFUSED_SANDBOX_PATH' })));
      expect(errors[0]!.message).toBe("the tool declares filesystem.read '/', the host's whole file system: no tool may be given it; the sandbox refuses every call of this tool (SANDBOX_UNAVAILABLE)");
      expect(errors[1]!.message).toMatch(/^the tool declares filesystem\.write '\/proc\/sys', which is or holds the host's \/proc/);
      expect(errors[2]!.message).toMatch(/^the tool declares filesystem\.write '~\/\.ssh' \(really .*\/\.ssh\), a dot-entry of the home folder/);
      expect(errors[3]!.message).toMatch(/^the tool declares filesystem\.write '\/usr\/local\/bin', which is inside the system folder \/usr: no tool may change it/);
      expect(errors[4]!.message).toMatch(/which is inside the hidden path .*cache \(the gateway's own files/);
    });
  });

  describe('when a tool declares a read of the home folder or its dot-entries (review P, P14)', () => {
    it('reports each, unless the operator lists it in sandbox.ceiling.readable_roots; other home folders may be read', async () => {
      const env = folder.cliEnv();
      await writeFiles(folder.path, { 'tools/keys/TOOL.hdlp': shellTool('keys', ['~/.ssh', '~/.aws/credentials', '~/', '~/projects/data'], ['/srv/out']) });
      const run = await runCli(['validate', folder.path, '--json'], { env, cwd: folder.path });
      expect(run.code).toBe(1);
      const errors = JSON.parse(run.stdout).errors as Array<{ line: number; code: string; message: string }>;
      expect(errors.map(({ line, code }) => ({ line, code }))).toEqual([14, 15, 16].map((line) => ({ line, code: 'REFUSED_SANDBOX_PATH' })));
      expect(errors[0]!.message).toMatch(/^the tool declares filesystem\.read '~\/\.ssh' \(really .*\/\.ssh\), a dot-entry of the home folder .*only where the operator lists it in sandbox\.ceiling\.readable_roots/);
      expect(errors[2]!.message).toMatch(/^the tool declares filesystem\.read '~\/' \(really .*\), which is or holds the home folder/);
      const config = join(folder.path, 'ceiling.yaml');
      await writeFiles(folder.path, { 'ceiling.yaml': 'sandbox:\n  ceiling:\n    readable_roots: [~/.ssh, ~/.aws]\n' });
      const allowed = await runCli(['validate', folder.path, '--json', '--config', config], { env, cwd: folder.path });
      const left = (JSON.parse(allowed.stdout).errors as Array<{ line: number; code: string }>).filter((error) => error.code === 'REFUSED_SANDBOX_PATH');
      expect(left.map(({ line }) => line)).toEqual([16]);
    });
  });

  describe('when a tool declares the host\'s /tmp or /var/tmp, where the user\'s programs keep their sockets (review T, T4)', () => {
    it('reports each, unless the operator lists it in the ceiling', async () => {
      const env = folder.cliEnv();
      await writeFiles(folder.path, { 'tools/sockets/TOOL.hdlp': shellTool('sockets', ['/tmp', '/var/tmp/tmux-1000'], ['/tmp/out']) });
      const run = await runCli(['validate', folder.path, '--json'], { env, cwd: folder.path });
      expect(run.code).toBe(1);
      const errors = (JSON.parse(run.stdout).errors as Array<{ line: number; code: string; message: string }>).filter((error) => error.code === 'REFUSED_SANDBOX_PATH');
      expect(errors.map(({ line }) => line)).toEqual([14, 15, 17]);
      expect(errors[0]!.message).toMatch(/^the tool declares filesystem\.read '\/tmp', the host's shared \/tmp, where the user's programs keep their unix sockets \(tmux, ssh-agent/);
      expect(errors[2]!.message).toMatch(/^the tool declares filesystem\.write '\/tmp\/out', inside the host's shared \/tmp, .*sandbox\.ceiling\.writable_roots/);
      const config = join(folder.path, 'ceiling.yaml');
      await writeFiles(folder.path, { 'ceiling.yaml': 'sandbox:\n  ceiling:\n    readable_roots: [/tmp, /var/tmp]\n    writable_roots: [/tmp/out]\n' });
      const allowed = await runCli(['validate', folder.path, '--json', '--config', config], { env, cwd: folder.path });
      expect((JSON.parse(allowed.stdout).errors as Array<{ code: string }>).filter((error) => error.code === 'REFUSED_SANDBOX_PATH')).toEqual([]);
    });
  });

  describe('when the tool starts no local process', () => {
    it('only warns that its sandbox has no effect', async () => {
      await writeFiles(folder.path, { 'tools/api/TOOL.hdlp': `${makeToolYaml('api', { executor: 'hldp-api', method: 'health', http: '{ path: /healthz }' })}sandbox: { filesystem: { write: [/proc/sys] } }\n` });
      const run = await runCli(['validate', folder.path, '--json'], { env: folder.cliEnv(), cwd: folder.path });
      const result = JSON.parse(run.stdout);
      expect(result.errors.filter((error: { code: string }) => error.code === 'REFUSED_SANDBOX_PATH')).toEqual([]);
      expect(result.warnings).toEqual([expect.objectContaining({ code: 'SANDBOX_IGNORED' })]);
    });
  });
});
