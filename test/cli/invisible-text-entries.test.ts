// Task twin14: INVISIBLE_TEXT (review userX, X10) was checked in TOOL.hdlp only. A TOOLSET.hdlp's description, a
// SKILL.md's body (read into agents' prompts whole) and a policy's reasons (shown to approvers) hid instructions the
// same way and were served. They are now refused alike, at file:line:col, by the scan and `hldp validate`, with the
// same joiners allowed. A real repository, a real commit, the real CLI.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

const RLO = '\u202e';
const TAGS = String.fromCodePoint(0xe0049, 0xe0047, 0xe004e); // "IGN" in tag characters
const FILES = {
  'tools/ok/TOOL.hdlp': makeToolYaml('ok'),
  // a raw bidi override in the description (line 2, column 23)
  'toolsets/ops/TOOLSET.hdlp': `name: ops\ndescription: the ops tools ${RLO}txt.exe\ntools: [ok]\nauthor: TEST-001\nwhy: tests\n`,
  // a zero-width space written as an escape in the hint (line 3): the agent reads it, the reviewer sees "\u200b"
  'toolsets/hinted/TOOLSET.hdlp': 'name: hinted\ndescription: hinted tools\nhint: "use ok\\u200b first"\ntools: [ok]\nauthor: TEST-001\nwhy: tests\n',
  // tag characters in the body (line 7, column 5)
  'skills/care/SKILL.md': `---\nname: care\ndescription: how to care\ntoolset: ops\n---\n# care\n\nRun ${TAGS} ok first.\n`,
  // Persian needs the zero-width non-joiner between its letters: allowed, as in a TOOL.hdlp
  'skills/farsi/SKILL.md': '---\nname: farsi\ndescription: در فارسی\n---\n# farsi\n\nمی\u200cخواهم فهرست را ببینم\n',
  // a bidi isolate in a reason an approver reads (line 3, column 20)
  'policies/writes.hdlp': `name: writes\nauthor: TEST-001\nwhy: approvers see \u2066this\u2069\napproval:\n  - tools: [ok]\n    decision: approve\n`,
};

const EXPECTED = [
  ['policies/writes.hdlp', 3, 20],
  ['skills/care/SKILL.md', 8, 5],
  ['toolsets/hinted/TOOLSET.hdlp', 3, 7],
  ['toolsets/ops/TOOLSET.hdlp', 2, 28],
];

type Reported = { file: string; line: number; column: number; code: string };
const invisible = (errors: Reported[]): Array<[string, number, number]> =>
  errors.filter((error) => error.code === 'INVISIBLE_TEXT').map((error) => [error.file, error.line, error.column] as [string, number, number]).sort();

describe('text a reviewer cannot see in a toolset, skill or policy', () => {
  it('is refused by hldp validate and by the scan at file:line:col, the joiners a script needs allowed', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, FILES, 'hidden text beside the tools');

    const validated = await runCli(['validate', repo, '--json'], { env: home.env, cwd: repo });
    expect(validated.code).toBe(1);
    expect(invisible((JSON.parse(validated.stdout) as { errors: Reported[] }).errors)).toEqual(EXPECTED);

    const scanned = await runCli(['scan', '--repo', repo, '--json'], { env: home.env });
    const index = JSON.parse(scanned.stdout) as { errors: Reported[]; toolsets: Array<{ name: string }>; skills: Array<{ name: string }>; policies: Array<{ name: string }> };
    expect(invisible(index.errors)).toEqual(EXPECTED);
    // none of them is served; the Persian skill is
    expect(index.toolsets).toEqual([]);
    expect(index.skills.map((skill) => skill.name)).toEqual(['farsi']);
    expect(index.policies ?? []).toEqual([]);
  });
});
