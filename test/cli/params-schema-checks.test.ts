import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// A params schema is checked against JSON Schema 2020-12's meta-schema once, by the scanner; the matcher's params
// validator compiles it without checking it again (issue #18: that check compiled the meta-schema at a server's first
// call by name). A call of a tool whose schema is hostile is still answered clearly, never run.
let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let repo: string;

beforeEach(async () => {
  temp = await makeTempDir();
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/code-in-schema/TOOL.hdlp': makeToolYaml('code-in-schema', { params_schema: '\n  cmd: { type: string, maxLength: "x; process.exit(3)" }' }),
    'tools/negative-length/TOOL.hdlp': makeToolYaml('negative-length', { params_schema: '\n  cmd: { type: string, minLength: -1 }' }),
    'tools/missing-ref/TOOL.hdlp': makeToolYaml('missing-ref', { params_schema: "\n  type: object\n  properties:\n    cmd: { $ref: '#/$defs/missing' }" }),
    'tools/echo/TOOL.hdlp': makeToolYaml('echo', { params_schema: '\n  cmd: { type: string, required: true, maxLength: 20 }' }),
  });
});
afterEach(() => temp.cleanup());

describe('hldp call of a tool whose params schema is hostile', () => {
  it.each([
    ['code-in-schema', /tools\/code-in-schema\/TOOL\.hdlp:7:\d+: 'params_schema\.cmd\.maxLength' is not valid JSON Schema: must be integer/],
    ['negative-length', /tools\/negative-length\/TOOL\.hdlp:7:\d+: 'params_schema\.cmd\.minLength' is not valid JSON Schema: must be >= 0/],
  ])('does not serve %s: the scanner refused it, and the answer names the line to fix', async (tool, problem) => {
    const run = await runCli(['call', tool, '--repo', repo, '--params', '{"cmd":"echo ran"}'], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`tool '${tool}' is in the repository but its definition is broken, so it is not served`);
    expect(run.stderr).toMatch(problem);
  });

  it('answers INVALID_PARAMS for a schema the scanner passed but ajv cannot compile (an unresolvable $ref), and runs nothing', async () => {
    const run = await runCli(['call', 'missing-ref', '--repo', repo, '--params', '{"cmd":"echo ran"}', '--json'], { env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      found: true, code: 'INVALID_PARAMS', tool: 'missing-ref',
      error: "the params schema of 'missing-ref' cannot be used ('#/$defs/missing' resolves to nothing: add it under params_schema.$defs); fix its TOOL.hdlp",
    });
  });

  it('still checks the params of a sound schema against it', async () => {
    const run = await runCli(['call', 'echo', '--repo', repo, '--params', '{"cmd":"echo this is far too long to pass"}', '--json'], { env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ code: 'INVALID_PARAMS', tool: 'echo', problems: [{ param: 'cmd', message: 'must NOT have more than 20 characters' }] });
  });
});
