import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-folded-item-');

const lines = (...text: string[]): string => `${text.join('\n')}\n`;
const tool = (name: string, ...body: string[]): string => lines(`name: ${name}`, `display: ${name}`, 'intent: echo hi', 'method: echo', 'executor: shell', 'params_schema: {}', ...body, 'author: u', 'created: 2026-12-07', 'why: w');

// review userZ10, U10-12: a '- ' item indented one space more than the item above is no item: YAML joins its line into
// the plain value above (argv: ["echo - hi"]). hldp validate said nothing and the call failed at run time
// (SPAWN_FAILED "exec: echo - hi: not found"); it is now told at the '-', in a tool and in a toolset alike
describe('hldp validate, a list item indented further than the one above', () => {
  it('is told at its line and column, with the value YAML made of it', async () => {
    await writeFiles(folder.path, {
      'tools/list-indent/TOOL.hdlp': tool('list-indent', 'shell:', '  argv:', '    - echo', '     - hi'),
      // a value written over two lines with no '- ' is what YAML allows: no word on it
      'tools/two-lines/TOOL.hdlp': tool('two-lines', 'shell:', '  argv:', '    - echo', '    - hello', '      world'),
      'toolsets/pair/TOOLSET.hdlp': lines('name: pair', 'description: two tools', 'tools:', '  - list-indent', '   - two-lines', 'author: u', 'why: w'),
    });
    const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.stdout.trim().split('\n')).toEqual([
      "tools/list-indent/TOOL.hdlp:10:6: warning: '- hi' is indented further than the line above it, so YAML joined it into the value above ('echo - hi'), not a list item of its own: write each item of a list on its own line, its '- ' at the column of the others (or, if the text is meant, quote the whole value)",
      expect.stringMatching(/^toolsets\/pair\/TOOLSET\.hdlp:4:5: error: toolset 'pair' names 'list-indent - two-lines', which is neither a tool nor a group/),
      "toolsets/pair/TOOLSET.hdlp:5:4: warning: '- two-lines' is indented further than the line above it, so YAML joined it into the value above ('list-indent - two-lines'), not a list item of its own: write each item of a list on its own line, its '- ' at the column of the others (or, if the text is meant, quote the whole value)",
    ]);
  });
});
