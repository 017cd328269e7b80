// Review Z18, Z18-6: the condition-key check read a params schema as closed only from its root's own
// additionalProperties/unevaluatedProperties. A root that is only a `$ref` to a closed definition (or an `allOf` of
// one) is closed to Ajv, which refuses any other param, yet counted as open here: a `when` key no tool declares, and no
// slip of one, was a warning (the rule matches nothing) where it is an error that refuses the policy. Real git
// repository, real `hldp validate` process.
// Review Z20, Z20-3: `unevaluatedProperties: false` counted as closed even beside an `additionalProperties` schema that
// evaluates every other param (Ajv takes `owner` there): the correct policy over it was refused, and every call with it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { policyRepository } from './support.js';

const tool = (name: string, schema: string[]) => [
  `name: ${name}`, 'display: Write a note', 'intent: write a note file in the workspace', 'method: write_file', 'executor: gatekeeper',
  'params_schema:', ...schema.map((line) => `  ${line}`), 'author: TEST-001', 'created: 2026-12-01', 'why: agents keep notes',
].join('\n');
const note = (closed: boolean) => ['    type: object', '    properties:', '      path: { type: string }', '      content: { type: string }', '    required: [path, content]', ...(closed ? ['    additionalProperties: false'] : [])];
// only a $ref at the root, the definition it names closed (or not)
const byReference = (name: string, closed: boolean) => tool(name, ['type: object', "$ref: '#/$defs/note'", '$defs:', '  note:', ...note(closed)]);
// the definition's unevaluatedProperties false, but its additionalProperties a schema: every other string is evaluated
const byReferenceEvaluated = tool('note-ref-evaluated', ['type: object', "$ref: '#/$defs/note'", '$defs:', '  note:', ...note(false), '    additionalProperties: { type: string }', '    unevaluatedProperties: false']);
// only an allOf at the root, its one part closed
const allOfClosed = tool('note-all-of', ['type: object', 'allOf:', '  - type: object', '    properties:', '      path: { type: string }', '      content: { type: string }', '    additionalProperties: false']);
const policy = (name: string, over: string) => [
  `name: ${name}`, 'author: TEST-001', 'why: private notes stay private', 'approval:',
  `  - tools: [${over}]`, '    when: { owner: { glob: "private/**" } }', '    decision: deny', '    reason: no private notes',
].join('\n');

describe('a when key no tool declares, over a root that is only a $ref or allOf (review Z18, Z18-6)', () => {
  let setup: Awaited<ReturnType<typeof policyRepository>> | undefined;
  beforeAll(async () => {
    setup = await policyRepository({
      'tools/note-ref-closed/TOOL.hdlp': byReference('note-ref-closed', true),
      'tools/note-ref-open/TOOL.hdlp': byReference('note-ref-open', false),
      'tools/note-all-of/TOOL.hdlp': allOfClosed,
      'tools/note-ref-evaluated/TOOL.hdlp': byReferenceEvaluated,
      'policies/ref-evaluated.hdlp': policy('ref-evaluated', 'note-ref-evaluated'),
      'policies/ref-closed.hdlp': policy('ref-closed', 'note-ref-closed'),
      'policies/ref-open.hdlp': policy('ref-open', 'note-ref-open'),
      'policies/all-of.hdlp': policy('all-of', 'note-all-of'),
    });
  }, 120_000);
  afterAll(() => setup?.temp.cleanup());

  it('is an error where the definition reached is closed, and stays a warning where it is open or evaluates every other param', { timeout: 60_000 }, async () => {
    const env = { HLDP_CACHE_DIR: join(setup!.temp.path, 'cache'), HLDP_DATA_DIR: join(setup!.temp.path, 'data') };
    const validate = await runCli(['validate', '.', '--json'], { cwd: setup!.repo, env });
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    const { errors, warnings } = JSON.parse(validate.stdout) as Record<'errors' | 'warnings', Array<Record<string, unknown>>>;
    const unknown = (list: Array<Record<string, unknown>>) => list.filter((one) => one.code === 'UNKNOWN_PARAM').map((one) => [one.file, one.line, one.severity]);
    expect(unknown(errors)).toEqual(expect.arrayContaining([['policies/ref-closed.hdlp', 6, 'error'], ['policies/all-of.hdlp', 6, 'error']]));
    expect(unknown(errors)).toHaveLength(2);
    expect(unknown(warnings)).toEqual(expect.arrayContaining([['policies/ref-open.hdlp', 6, 'warning'], ['policies/ref-evaluated.hdlp', 6, 'warning']]));
    expect(unknown(warnings)).toHaveLength(2);
    expect(errors).toContainEqual(expect.objectContaining({ file: 'policies/ref-closed.hdlp', message: expect.stringContaining("conditions on 'owner', which note-ref-closed does not take (its params: path, content)") }));
  });
});
