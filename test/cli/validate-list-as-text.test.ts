import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-list-as-text-');

const lines = (...text: string[]): string => `${text.join('\n')}\n`;

// review userZ10, U10-6: `examples: what day is it today` (a text where a list is asked) was told only "'examples' must
// be array"; it is shown the list it would be, as `http: {query: fields}` is told `query: [fields]`
describe('hldp validate, a list field written as one text', () => {
  it('shows the list it would be', async () => {
    await writeFiles(folder.path, {
      'tools/today/TOOL.hdlp': lines('name: today', 'display: Today', 'intent: Tell the date', 'method: date', 'executor: shell', 'params_schema: {}', 'shell: { argv: [date] }',
        'examples: what day is it today', 'aliases: 日期, 今天', 'author: u', 'created: 2026-12-07', 'why: w'),
    });
    const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.stdout).toContain("tools/today/TOOL.hdlp:8:11: error: 'examples' must be array: a list, written as examples: [what day is it today] or with each item on its own line after '- '");
    expect(run.stdout).toContain(`tools/today/TOOL.hdlp:9:10: error: 'aliases' must be array: a list, written as aliases: ["日期, 今天"] or with each item on its own line after '- '`);
  });
});
