import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-stray-');

// review R, R4: a shell tool carrying `http:` and `gatekeeper:` blocks was served, the blocks silently ignored
const strayTool = makeToolYaml('extra', {
  method: 'run',
  executor: 'shell',
  shell: '{ argv: [echo, hi] }',
  http: '{ method: GET, path: /x }',
  gatekeeper: '{ target: foo }',
});

const strayLines = [
  "tools/extra/TOOL.hdlp:11:1: error: 'http' is for executor hldp-api; this tool's executor is shell: remove it",
  "tools/extra/TOOL.hdlp:12:1: error: 'gatekeeper' is for executor gatekeeper; this tool's executor is shell: remove it",
];

describe('hldp validate', () => {
  describe("when a tool carries another executor's block", () => {
    it('reports each stray block at its key and exits 1', async () => {
      await writeFiles(folder.path, { 'tools/extra/TOOL.hdlp': strayTool, 'tools/fine/TOOL.hdlp': makeToolYaml('fine') });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.trim().split('\n').filter((line) => line.startsWith('tools/'))).toEqual(strayLines);
      expect(run.code).toBe(1);
    });
  });
});

describe('hldp scan', () => {
  describe("when a committed tool carries another executor's block", () => {
    it('leaves that tool out, reports the blocks at their keys, and serves the others', async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      await commitFiles(repo, { 'tools/extra/TOOL.hdlp': strayTool, 'tools/fine/TOOL.hdlp': makeToolYaml('fine') });
      const run = await folder.scan(repo);
      const result = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<{ file: string; line: number; column: number; message: string }> };
      expect(result.tools.map((tool) => tool.name)).toEqual(['fine']);
      expect(result.errors.map((error) => `${error.file}:${error.line}:${error.column}: error: ${error.message}`).sort()).toEqual([...strayLines].sort());
    });
  });
});
