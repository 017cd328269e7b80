import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-one-round-');

const lines = (...text: string[]): string => `${text.join('\n')}\n`;
const MANY = Array.from({ length: 50 }, (_, at) => `m${at}`);
const greet = lines('name: greet', 'display: Greet', 'intent: Say hello to someone', 'method: run', 'executor: shell', 'params_schema:', '  name: { type: string, required: true, pattern: "^[a-z]+$" }', 'shell: { argv: [echo, "{name}"] }', 'author: u', 'created: 2026-02-28', 'why: w');

// review userZ9, U9-4: an author's slips came in rounds, one error hiding the next: a path without its '/' hid its own
// placeholder typo (and its "did you mean" repeated the typo), any error hid an unknown API, an alias that is another
// tool's name, and a skill's toolset naming no toolset
describe('hldp validate, a file with several slips', () => {
  it('tells every slip in one run, each fix whole', async () => {
    await writeFiles(folder.path, {
      'hldp.yaml': lines('apis:', '  wx: { url: "http://127.0.0.1:9" }'),
      'tools/greet/TOOL.hdlp': greet,
      'tools/city-time/TOOL.hdlp': lines(
        'name: city-time', 'display: City time', 'intent: Local time in a city', 'method: http', 'executor: hldp-api', 'aliases: [greet]',
        'params_schema:', '  city: { type: string, required: true }', 'http:', '  method: GET', '  path: time/{cty}', '  api: clock', 'author: u', 'created: 2026-02-28', 'why: w',
      ),
      // a key written twice is an error of its own: what the file declares is still read for the rest
      'tools/clock/TOOL.hdlp': lines('name: clock', 'display: Clock', 'display: Clock again', 'intent: Tell the time', 'method: http', 'executor: hldp-api', 'aliases: [Greet]', 'params_schema: {}', 'http: { method: GET, path: /now, api: wx }', 'author: u', 'created: 2026-02-28', 'why: w'),
      // YAML that does not parse is told alone: nothing it declares can be read
      'tools/unparsed/TOOL.hdlp': lines('name: unparsed', 'aliases: [greet', 'executor: hldp-api', 'http: { api: clock }'),
      'toolsets/t1/TOOLSET.hdlp': lines('name: t1', 'description: Greeting things', 'tools: [greet]', 'author: u', 'why: w'),
      // review Z20-1's rest: a refused file is warned of its first 20 conflicting aliases, as a served one is
      'tools/many/TOOL.hdlp': greet.replace('name: greet', 'name: many').replace('display: Greet', `display: Many\naliases: [${MANY.join(', ')}]`),
      'tools/copycat/TOOL.hdlp': lines('name: copycat', `aliases: [${MANY.join(', ')}]`),
      'skills/tips/SKILL.md': lines('---', 'name: tips', 'description: Read this first.', 'toolset: t2', 'licence: MIT', '---', '# Tips', 'Greet first.'),
    });
    const run = await runCli(['validate', '--config', 'hldp.yaml', '.'], { env: folder.cliEnv(), cwd: folder.path });
    const told = run.stdout.trim().split('\n');
    expect(told.filter((line) => line.startsWith('tools/city-time/'))).toEqual([
      "tools/city-time/TOOL.hdlp:6:11: warning: alias 'greet' also names tool 'greet'; once this file's errors are fixed, it is ignored for 'city-time'",
      "tools/city-time/TOOL.hdlp:11:9: error: 'http.path' must be a path that starts with / (such as /v1/items/{id}), or a '{+param}' holding the whole path; did you mean '/time/{city}'?",
      "tools/city-time/TOOL.hdlp:11:9: error: placeholder 'cty' is not a parameter in 'params_schema' (declared: city); did you mean 'city'?",
      expect.stringMatching(/^tools\/city-time\/TOOL\.hdlp:12:8: warning: http\.api 'clock' names no API of the gateway's config \(configured: wx, default\)/),
    ]);
    expect(told.filter((line) => line.startsWith('tools/clock/'))).toEqual([
      "tools/clock/TOOL.hdlp:3:1: error: key 'display' is written twice in one mapping (first at line 2): keep one",
      "tools/clock/TOOL.hdlp:7:11: warning: alias 'Greet' also names tool 'greet'; once this file's errors are fixed, it is ignored for 'clock'",
    ]);
    const written = `aliases: [${MANY.join(', ')}]`;
    expect(told.filter((line) => line.startsWith('tools/copycat/') && line.includes(': warning: alias '))).toEqual(
      MANY.slice(0, 20).map((alias, at) => `tools/copycat/TOOL.hdlp:2:${written.indexOf(`${alias},`) + 1}: warning: alias '${alias}' also names tool 'many'; once this file's errors are fixed, it is ignored for 'copycat'${at === 19 ? '; and 30 more of its aliases are ignored as well' : ''}`),
    );
    expect(told.filter((line) => line.startsWith('tools/unparsed/'))).toEqual([expect.stringMatching(/^tools\/unparsed\/TOOL\.hdlp:\d+:\d+: error: /)]);
    expect(told.filter((line) => line.startsWith('skills/'))).toEqual([
      "skills/tips/SKILL.md:4:10: error: skill 'tips' leads to toolset 't2', which this registry does not have (or which is broken); did you mean 't1'?",
      expect.stringMatching(/^skills\/tips\/SKILL\.md:5:1: error: unknown field 'licence'; did you mean 'license'\?/),
    ]);
    expect(run.code).toBe(1);
  });

  // review userZ10, U10-18: a policy's slips came one per run: a misspelt decision hid a tool name no tool has, and
  // that a condition on a param its tool does not take (three refused commits behind a pre-commit hook)
  it("tells a policy's every slip in one run: its schema's, its names' and its conditions'", async () => {
    const policy = (name: string, decision: string): string =>
      lines(`name: ${name}`, 'author: u', 'why: slips.', 'approval:', '  - tools: [gret]', `    decision: ${decision}`, '  - tools: [greet]', '    when: { nme: { equals: "root" } }', '    decision: deny');
    await writeFiles(`${folder.path}/policy-slips`, { 'tools/greet/TOOL.hdlp': greet, 'policies/p.hdlp': policy('p', 'approved'), 'policies/q.hdlp': policy('q', 'approve') });
    const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: `${folder.path}/policy-slips` });
    const named = (name: string): string => `policy '${name}' names 'gret', which is neither a tool nor a group of this registry; did you mean 'greet'? (a rule that matched nothing would not stop what it was written to stop, so the policy is refused whole)`;
    const condition = (name: string): string => `policy '${name}' conditions on 'nme', which greet does not take (its params: name); did you mean 'name'? (a condition on a param no call has never holds, so the rule would match nothing and not stop what it was written to stop: the policy is refused whole)`;
    expect(run.stdout.trim().split('\n')).toEqual([
      `policies/p.hdlp:5:13: error: ${named('p')}`,
      "policies/p.hdlp:6:15: error: 'approval.0.decision' must be one of: allow, approve, deny; did you mean 'approve'?",
      `policies/p.hdlp:8:13: error: ${condition('p')}`,
      // refused for its name alone (the scan tells it), its condition is told beside it, once each
      `policies/q.hdlp:5:13: error: ${named('q')}`,
      `policies/q.hdlp:8:13: error: ${condition('q')}`,
    ]);
    expect(run.code).toBe(1);
  });
});
