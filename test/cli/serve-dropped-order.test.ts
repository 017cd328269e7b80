// Review userY, Y7: `hldp serve` named a dropped definition's errors in the order its checks ran (the shape's first,
// then an unknown placeholder above them), where `hldp validate` gives them by line. A real server over a real folder.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const BROKEN = ['name: broken', 'display: D', 'intent: does a thing', 'method: run', 'executor: shell', 'shell: { argv: [echo, "{nope}"] }', 'params_schema: {}', 'created: 20261204', 'colour: blue', 'why: w', ''].join('\n');

describe('hldp serve', () => {
  describe('when a definition with several errors is dropped', () => {
    it("names its errors in the order of the file's lines, and serves the rest", async () => {
      const repo = join(home.path, 'registry');
      await writeFiles(repo, { 'tools/broken/TOOL.hdlp': BROKEN, 'tools/fine/TOOL.hdlp': makeToolYaml('fine') });
      const server = await home.serve(['--repo', repo]);
      const told = server.stderr().split('\n').filter((line) => line.trim().startsWith('tools/broken/TOOL.hdlp:')).map((line) => line.trim().split(': ')[0]);
      expect(told).toEqual(['tools/broken/TOOL.hdlp:1:1', 'tools/broken/TOOL.hdlp:6:23', 'tools/broken/TOOL.hdlp:8:10', 'tools/broken/TOOL.hdlp:9:1']);
      expect(server.stderr()).toContain('serving 1 tools');
    });
  });
});
