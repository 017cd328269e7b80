import { describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// A tool's folder is searched for its definition by the bytes of its name in one pass when its tree is small, and
// listed in turns as before when it is long (issue #18, cold23): both must find TOOL.hdlp wherever it sorts, and say
// when it is not there. 1,500 scripts make a folder tree of ~60 KB, past the one-pass bound.

const folder = testFolder();

function scripts(tool: string, count: number): Record<string, string> {
  const files: Record<string, string> = {};
  // upper case: sorted before TOOL.hdlp in the tree, so the search passes them all first
  for (let index = 0; index < count; index++) files[`tools/${tool}/A${String(index).padStart(4, '0')}.sh`] = `echo ${index}\n`;
  return files;
}

describe('a tool folder of 1,500 scripts beside its definition (real git http-backend)', () => {
  it('hldp scan finds each definition in a short and a long folder, and reports a long folder without one', async () => {
    const served = await folder.serve();
    await served.push({
      ...scripts('wide', 1500),
      'tools/wide/TOOL.hdlp': makeToolYaml('wide'),
      ...scripts('nodef', 1500),
      'tools/small/TOOL.hdlp': makeToolYaml('small'),
      'tools/small/run.sh': 'echo small\n',
    });
    const run = await folder.scan(served.url, { timeoutMs: 100_000 });
    const result = JSON.parse(run.stdout) as { tools: Array<{ name: string; path: string }>; errors: unknown[]; warnings: Array<{ file: string; code: string }> };
    expect(result.tools.map((tool) => [tool.name, tool.path])).toEqual([
      ['small', 'tools/small/TOOL.hdlp'],
      ['wide', 'tools/wide/TOOL.hdlp'],
    ]);
    expect(result.errors).toEqual([]);
    expect(result.warnings.map((warning) => [warning.file, warning.code])).toEqual([['tools/nodef/', 'MISSING_DEFINITION']]);
  }, 120_000);
});
