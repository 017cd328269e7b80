import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-pattern-');

const withPattern = (pattern: string): string => makeToolYaml('demo', { params_schema: `\n  who: { type: string, pattern: ${JSON.stringify(pattern)} }` });
const policyWithRegex = (regex: string): string => `name: p\nauthor: TEST-001\nwhy: tests need a policy\napproval:\n  - tools: [demo]\n    when: { who: { regex: ${JSON.stringify(regex)} } }\n    decision: deny\n`;

// review userU, F3: a malformed pattern was told to "rewrite it without look-around or back-references"
describe('hldp validate', () => {
  describe.each([
    ['a malformed pattern', '^[^-', /'\^\[\^-' is not a valid regular expression \(missing closing \]: `\[\^-`\)$/m, false],
    ['a look-ahead', '^(?!-)', /cannot run on RE2, .*\(invalid or unsupported Perl syntax: `\(\?!`\); rewrite it without look-around or back-references$/m, true],
    ['a look-behind', '(?<=a)b', /rewrite it without look-around or back-references$/m, true],
    ['a back-reference', '(a)\\1', /\(invalid escape sequence: `\\1`\); rewrite it without look-around or back-references$/m, true],
    ['a repeat JavaScript runs and RE2 refuses', 'a{1001}', /cannot run on RE2, .*\(invalid repeat count: `\{1001\}`\); rewrite it in the syntax RE2 and JavaScript share$/m, false],
  ])('when a params pattern is %s', (_case, pattern, message, lookAround) => {
    it('gives RE2\'s reason, and the look-around advice only where the pattern uses it', async () => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': withPattern(pattern) });
      const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout).toMatch(/^tools\/demo\/TOOL\.hdlp:\d+:\d+: error: pattern /);
      expect(run.stdout).toMatch(message);
      expect(run.stdout.includes('look-around')).toBe(lookAround);
      expect(run.code).toBe(1);
    });
  });

  describe.each([
    ['a malformed regex', '^[^-', /regex '\^\[\^-' is not linear-time RE2 syntax \(missing closing \]: `\[\^-`\); it is not a valid regular expression$/m],
    ['a look-ahead', 'a(?=b)', /regex 'a\(\?=b\)' is not linear-time RE2 syntax \(invalid or unsupported Perl syntax: `\(\?=`\); RE2 has no look-around and no back-references: rewrite it without them$/m],
  ])("when a policy's approval regex is %s", (_case, regex, message) => {
    it('gives the look-around advice only where the regex uses it', async () => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': makeToolYaml('demo', { params_schema: '\n  who: { type: string }' }), 'policies/p.hdlp': policyWithRegex(regex) });
      const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout).toMatch(/^policies\/p\.hdlp:6:\d+: error: regex /m);
      expect(run.stdout).toMatch(message);
      expect(run.code).toBe(1);
    });
  });
});
