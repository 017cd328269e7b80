// Review userY, Y6: validate passed a params schema the gateway cannot compile (a `$ref` to a missing `$defs` entry),
// whose every call was then refused, and a `format` ajv does not know (`emial`), which checked nothing while ajv
// printed its own raw "unknown format … ignored" warning on the CLI's stderr. validate now compiles each tool's schema
// with the gateway's own validator and reports both at their line; the gateway's ajv prints nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const head = (name: string, executor = 'shell'): string =>
  `name: ${name}\ndisplay: d ${name}\nintent: do thing ${name}\nmethod: ${executor === 'mcp' ? 'call' : 'run'}\nexecutor: ${executor}\nauthor: me\ncreated: 2026-12-05\nwhy: test\n`;

const TOOLS = {
  // line 10: the format's value at column 47
  'tools/f1/TOOL.hdlp': `${head('f1')}params_schema:\n  to: { type: string, required: true, format: emial }\nshell: { argv: [echo, --, "{to}"] }\n`,
  // line 12: the $ref's value at column 19
  'tools/f2/TOOL.hdlp': `${head('f2')}params_schema:\n  type: object\n  properties:\n    item: { $ref: "#/$defs/item" }\n  required: [item]\nshell: { argv: [echo, --, "{item}"] }\n`,
  // line 10: a reference to another file, which the gateway never fetches
  'tools/f3/TOOL.hdlp': `${head('f3')}params_schema:\n  item: { $ref: "other.json#/item", required: true }\nshell: { argv: [echo, --, "{item}"] }\n`,
  // an MCP server checks its own params, and its schema comes back with each import: a warning
  'tools/f4/TOOL.hdlp': `${head('f4', 'mcp')}params_schema:\n  when: { type: string, format: daytime }\nmcp: { server: s, tool: t }\n`,
  // what the gateway compiles passes: a $ref into $defs, known formats
  'tools/good/TOOL.hdlp': `${head('good')}params_schema:\n  type: object\n  properties:\n    item: { $ref: "#/$defs/item" }\n    to: { type: string, format: email }\n  required: [item]\n  $defs:\n    item: { type: string, format: uuid }\nshell: { argv: [echo, --, "{item}", ["{to}"]] }\n`,
};

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;

describe('hldp validate compiles each params schema as the gateway does (review userY, Y6)', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    repo = await initRepository(`${temp.path}/repo`);
    await commitFiles(repo, TOOLS);
    env = { HLDP_CACHE_DIR: `${temp.path}/cache`, HLDP_DATA_DIR: `${temp.path}/data`, HLDP_WORKSPACE: temp.path, HLDP_SANDBOX: 'off', HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(() => temp?.cleanup());

  it('names a $ref to nothing and an unknown format at their lines, with the fix', async () => {
    const run = await runCli(['validate', '.'], { env, cwd: repo });
    expect(run.stdout).toContain("tools/f1/TOOL.hdlp:10:47: error: unknown format 'emial': the gateway checks nothing for it; did you mean 'email'? Known formats: date, time, date-time,");
    expect(run.stdout).toContain("tools/f2/TOOL.hdlp:12:19: error: the gateway cannot compile this params schema: '#/$defs/item' resolves to nothing: add it under params_schema.$defs. Every call would be refused");
    expect(run.stdout).toMatch(/tools\/f3\/TOOL\.hdlp:10:17: error: the gateway cannot compile this params schema: 'other\.json#\/item' resolves to nothing: the gateway fetches no other schema/);
    expect(run.stdout).toMatch(/tools\/f4\/TOOL\.hdlp:10:33: warning: unknown format .daytime.: the gateway checks nothing for it\. Known formats: date,/);
    expect(run.stdout).not.toContain('tools/good/');
    expect(run.stderr).toContain('5 file(s) under .: 3 error(s), 1 warning(s)');
    expect(run.stderr).not.toMatch(/unknown format "/);
    expect(run.code).toBe(1);
  });

  it('validate --json gives the code with each', async () => {
    const run = await runCli(['validate', '--json', '.'], { env, cwd: repo });
    const report = JSON.parse(run.stdout) as { errors: Array<{ file: string; code: string }> };
    expect(report.errors.map((error) => `${error.file} ${error.code}`).sort()).toEqual(['tools/f1/TOOL.hdlp INVALID_PARAMS_SCHEMA', 'tools/f2/TOOL.hdlp INVALID_PARAMS_SCHEMA', 'tools/f3/TOOL.hdlp INVALID_PARAMS_SCHEMA']);
  });

  it('a call prints no raw ajv warning, and a schema that cannot compile is refused in the same plain words', async () => {
    const f1 = await runCli(['call', 'f1', '--repo', repo, '--params', '{"to":"not-an-address"}'], { env, cwd: temp.path });
    expect(f1.stdout + f1.stderr).not.toMatch(/unknown format/);
    const f2 = await runCli(['call', 'f2', '--repo', repo, '--params', '{"item":"a"}'], { env, cwd: temp.path });
    expect(f2.stdout + f2.stderr).toContain("the params schema of 'f2' cannot be used ('#/$defs/item' resolves to nothing: add it under params_schema.$defs); fix its TOOL.hdlp");
    const good = await runCli(['call', 'good', '--repo', repo, '--params', '{"item":"not-a-uuid"}'], { env, cwd: temp.path });
    expect(good.stdout + good.stderr).toMatch(/'item' must match format "uuid"/);
  });
});
