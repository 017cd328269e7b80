// Review userW, W1, W1b and W5: a definition that validates must be callable as it reads. A default its own schema
// refuses failed every call leaving it out (INVALID_PARAMS, the caller blamed); a `required` name that
// additionalProperties: false forbids made every call fail; and an empty list for a whole "{list}" argv element, which
// the schema accepts (and validate's own advice, "give it a default", leads to), failed as EXECUTOR_MISCONFIGURED.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const shell = (argv: string): Record<string, string> => ({ method: 'run', executor: 'shell', shell: `\n  argv: ${argv}` });

const TOOLS = {
  'tools/defbad/TOOL.hdlp': makeToolYaml('defbad', {
    ...shell('[echo, "{mode}", "{count}", "{name}", "{size}"]'),
    params_schema: [
      '',
      '  mode: { type: string, enum: [fast, slow], default: medium }',
      '  count: { type: integer, minimum: 1, default: 0 }',
      '  name: { type: string, pattern: "^[a-z]+$", default: "--help" }',
      '  size: { type: integer, default: 3 }',
    ].join('\n'),
  }),
  'tools/full/TOOL.hdlp': makeToolYaml('full', {
    ...shell('[echo, "{n}"]'),
    params_schema: '\n  type: object\n  properties:\n    n: { type: integer, default: 1 }\n  required: [n, q]\n  additionalProperties: false',
  }),
  'tools/spread/TOOL.hdlp': makeToolYaml('spread', {
    ...shell('[printf, "<%s>", first, "{list}", last]'),
    params_schema: '\n  list: { type: array, items: { type: string }, default: [] }',
  }),
};

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;

describe('definitions that validate are callable as they read (review userW, W1, W1b, W5)', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    repo = await initRepository(`${temp.path}/repo`);
    await commitFiles(repo, TOOLS);
    env = { HLDP_CACHE_DIR: `${temp.path}/cache`, HLDP_DATA_DIR: `${temp.path}/data`, HLDP_WORKSPACE: temp.path, HLDP_SANDBOX: 'off', HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(() => temp?.cleanup());

  it('hldp validate names each default its own schema refuses, at the default, and the required name nothing declares', async () => {
    const run = await runCli(['validate', repo], { env, cwd: temp.path });
    expect(run.code).toBe(1);
    const lines = run.stdout + run.stderr;
    for (const [name, line, why] of [['mode', '7:45', 'must be one of "fast", "slow"'], ['count', '8:39', 'must be >= 1'], ['name', '9:46', 'must match pattern']] as const) {
      expect(lines).toMatch(new RegExp(`tools/defbad/TOOL\\.hdlp:${line}: error: the default of parameter '${name}' .*${why.replace(/[()]/g, '\\$&')}`));
    }
    expect(lines).not.toMatch(/parameter 'size'/);
    expect(lines).toMatch(/tools\/full\/TOOL\.hdlp:10:\d+: error: 'q' is required, but it is not in 'properties' and additionalProperties is false/);
    expect(lines).not.toMatch(/tools\/spread\//);
  });

  // review userZ5, F2: a schema error on one parameter left the tool out of the index, and so its other defaults
  // unchecked: the enum refusing `medium` came only in the run after `type` and `minimun` were fixed
  it("names a default its schema refuses in the same run as another parameter's schema errors", async () => {
    const folder = join(temp.path, 'broken-schema');
    const text = makeToolYaml('badschema', {
      ...shell('[sleep, "{secs}"]'),
      params_schema: '\n  secs: { type: int, description: how long, minimun: 1 }\n  mode: { type: string, enum: [fast, slow], default: medium }\n  fine: { type: integer, default: 2 }',
    });
    await mkdir(join(folder, 'tools', 'badschema'), { recursive: true });
    await writeFile(join(folder, 'tools', 'badschema', 'TOOL.hdlp'), text);
    const run = await runCli(['validate', folder], { env, cwd: temp.path });
    expect(run.code).toBe(1);
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.includes('mode:'));
    const place = `${at + 1}:${lines[at]!.indexOf('default') + 1}`;
    expect(run.stdout).toContain(`tools/badschema/TOOL.hdlp:${place}: error: the default of parameter 'mode' ("medium") does not satisfy its own schema: it must be one of "fast", "slow"`);
    // the errors that broke it are still said, and nothing of the parameters they are in, nor of a default that fits
    expect(run.stdout).toMatch(/tools\/badschema\/TOOL\.hdlp:\d+:\d+: error: .*minimun/);
    expect(run.stdout).not.toMatch(/default of parameter '(secs|fine)'/);
  });

  it('an empty list fills a whole "{list}" element with no argument, given or by default', async () => {
    const given = await runCli(['call', 'spread', '--repo', repo, '--params', '{"list":[]}'], { env, cwd: temp.path });
    expect(given.stdout).toContain('<first><last>');
    expect(given.code).toBe(0);
    const defaulted = await runCli(['call', 'spread', '--repo', repo], { env, cwd: temp.path });
    expect(defaulted.stdout).toContain('<first><last>');
    const two = await runCli(['call', 'spread', '--repo', repo, '--params', '{"list":["a","b c"]}'], { env, cwd: temp.path });
    expect(two.stdout).toContain('<first><a><b c><last>');
  });
});
