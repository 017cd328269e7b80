import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-method-params-');

const forgejoTool = (name: string, method: string, paramsSchema: string): string =>
  makeToolYaml(name, { executor: 'git-forgejo', method, params_schema: paramsSchema, forgejo: '{ repo: zhuyuan/notes }' });

// review userY, Y1: a git-forgejo tool whose params_schema cannot give its method what it needs passed validate and
// failed at every call with INVALID_PARAMS, which reads as the caller's fault
describe('hldp validate', () => {
  describe("when a git-forgejo tool's params_schema does not declare a parameter its method needs", () => {
    it('reports METHOD_PARAMS_MISMATCH at params_schema, naming the parameters, and exits 1', async () => {
      await writeFiles(folder.path, {
        'tools/reader/TOOL.hdlp': forgejoTool('reader', 'read_file', '{ ref: { type: string } }'),
        'tools/writer/TOOL.hdlp': forgejoTool('writer', 'write_file', '{ message: { type: string } }'),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("tools/reader/TOOL.hdlp:6:1: error: git-forgejo method 'read_file' needs parameter 'path', which 'params_schema' does not declare: every call would fail; declare path: { type: string, required: true }");
      expect(run.stdout).toContain("tools/writer/TOOL.hdlp:6:1: error: git-forgejo method 'write_file' needs parameters 'path' and 'content', which 'params_schema' does not declare");
      const json = await runCli(['validate', folder.path, '--json'], { env: folder.cliEnv(), cwd: folder.path });
      expect(JSON.parse(json.stdout).errors).toEqual([
        expect.objectContaining({ file: 'tools/reader/TOOL.hdlp', line: 6, column: 1, code: 'METHOD_PARAMS_MISMATCH' }),
        expect.objectContaining({ file: 'tools/writer/TOOL.hdlp', line: 6, column: 1, code: 'METHOD_PARAMS_MISMATCH' }),
      ]);
    });
  });

  // review userZ2, U8: the advice was the shorthand's `required: true`, which a full JSON Schema then refuses
  describe('when the params_schema is a full JSON Schema', () => {
    it("gives the advice in that schema's own form, which then validates", async () => {
      const full = (properties: string, required: string) => `\n  type: object\n  properties:\n${properties}\n  required: [${required}]\n  additionalProperties: false`;
      await writeFiles(folder.path, {
        'tools/f-full/TOOL.hdlp': forgejoTool('f-full', 'read_file', full('    file: { type: string }', 'file')),
        'tools/f-opt/TOOL.hdlp': forgejoTool('f-opt', 'write_file', full('    path: { type: string }\n    content: { type: string }', 'content')),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.split('\n').filter(Boolean)).toEqual([
        "tools/f-full/TOOL.hdlp:6:1: error: git-forgejo method 'read_file' needs parameter 'path', which 'params_schema' does not declare: every call would fail; add 'path' to params_schema.properties as {type: string} and to params_schema.required (required: [path])",
        "tools/f-opt/TOOL.hdlp:9:5: warning: git-forgejo method 'write_file' needs parameter 'path', which 'params_schema' leaves optional without a default: a call without it fails; add 'path' to params_schema.required (required: [path]), or give it a default",
      ]);
      expect(run.stdout).not.toContain('required: true');
      // the advice followed to the letter
      await writeFiles(folder.path, {
        'tools/f-full/TOOL.hdlp': forgejoTool('f-full', 'read_file', full('    file: { type: string }\n    path: { type: string }', 'file, path')),
        'tools/f-opt/TOOL.hdlp': forgejoTool('f-opt', 'write_file', full('    path: { type: string }\n    content: { type: string }', 'content, path')),
      });
      const fixed = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(fixed.stdout).toBe('');
      expect(fixed.code).toBe(0);
    });
  });

  describe('when the parameter is declared as something other than text', () => {
    it('reports it at the parameter', async () => {
      await writeFiles(folder.path, { 'tools/issuer/TOOL.hdlp': forgejoTool('issuer', 'create_issue', '\n  title: { type: integer, required: true }') });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("tools/issuer/TOOL.hdlp:7:3: error: git-forgejo method 'create_issue' reads parameter 'title' as text, but 'params_schema' declares it as integer: every call would fail; make it type: string");
    });
  });

  describe('when the schema lets other properties through, or leaves the parameter optional without a default', () => {
    it('warns, and exits 0', async () => {
      await writeFiles(folder.path, {
        'tools/open/TOOL.hdlp': forgejoTool('open', 'read_file', '{ type: object, properties: {} }'),
        'tools/optional/TOOL.hdlp': forgejoTool('optional', 'read_file', '{ path: { type: string } }'),
      });
      const run = await runCli(['validate', folder.path, '--json'], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).warnings).toEqual([
        expect.objectContaining({ file: 'tools/open/TOOL.hdlp', code: 'METHOD_PARAMS_MISMATCH', message: expect.stringContaining('a caller is never told to send it') }),
        expect.objectContaining({ file: 'tools/optional/TOOL.hdlp', code: 'METHOD_PARAMS_MISMATCH', message: expect.stringContaining('leaves optional without a default') }),
      ]);
    });
  });

  describe('when every parameter the method needs is declared, required or with a default', () => {
    it('passes, as do methods that need none', async () => {
      await writeFiles(folder.path, {
        'tools/reader/TOOL.hdlp': forgejoTool('reader', 'read_file', '{ path: { type: string, required: true }, ref: { type: string } }'),
        'tools/readme/TOOL.hdlp': forgejoTool('readme', 'read_file', '{ path: { type: string, default: README.md } }'),
        'tools/commits/TOOL.hdlp': forgejoTool('commits', 'list_commits', '{}'),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout).toBe('');
      expect(run.code).toBe(0);
    });
  });
});

describe('hldp scan', () => {
  describe('when one git-forgejo tool cannot be given its parameters', () => {
    it('reports it and serves every other tool', async () => {
      await writeFiles(folder.path, {
        'tools/reader/TOOL.hdlp': forgejoTool('reader', 'read_file', '{}'),
        'tools/commits/TOOL.hdlp': forgejoTool('commits', 'list_commits', '{}'),
        'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'),
      });
      const run = await runCli(['scan', '--repo', folder.path, '--json'], { env: folder.cliEnv() });
      const scanned = JSON.parse(run.stdout);
      expect(scanned.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(['alpha', 'commits']);
      expect(scanned.errors).toEqual([expect.objectContaining({ file: 'tools/reader/TOOL.hdlp', line: 6, column: 1, code: 'METHOD_PARAMS_MISMATCH' })]);
    });
  });
});
