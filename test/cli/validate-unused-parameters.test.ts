// Review userZ9, U9-7: a parameter of a `shell.argv` tool that no template uses passed `hldp validate` in silence, and a
// caller's value for it was dropped while the agent, which sees it in the tool's schema, believed it applied. The
// reverse slip (a placeholder no parameter declares) was an error already; now this one is a warning at the parameter.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const tool = (name: string, body: string): string =>
  [`name: ${name}`, `display: ${name}`, `intent: count lines (${name})`, 'method: run', 'executor: shell', body, 'author: TEST-001', 'created: 2026-12-01', `why: tests need ${name}`].join('\n') + '\n';

const TOOLS: Record<string, string> = {
  // the reviewer's: max_depth forgotten in both templates (the shorthand params_schema)
  'count-lines': tool('count-lines', [
    'params_schema:',
    '  paths: { type: array, items: { type: string }, required: true }',
    '  lines_only: { type: boolean, default: true }',
    '  max_depth: { type: integer }',
    'shell:',
    '  select: lines_only',
    '  argv: { "true": [wc, -l, --, "{paths}"], "false": [wc, -c, --, "{paths}"] }',
  ].join('\n')),
  // a full JSON Schema: the warning at the name under properties
  'disk-free': tool('disk-free', [
    'params_schema:',
    '  type: object',
    '  properties:',
    '    human: { type: boolean }',
    '    path: { type: string }',
    '  required: [path]',
    'shell:',
    '  argv: [df, --, "{path}"]',
  ].join('\n')),
  // every parameter read: by argv, env, cwd; a script and stdin: json read them all
  'all-used': tool('all-used', [
    'params_schema:',
    '  a: { type: string, required: true }',
    '  b: { type: string, required: true }',
    '  c: { type: string, required: true }',
    'shell:',
    '  argv: [echo, "x{a}y"]',
    '  env: { B_VALUE: "{b}" }',
    '  cwd: "{c}"',
  ].join('\n')),
  'scripted': tool('scripted', ['params_schema:', '  a: { type: string }', 'shell:', '  script: echo "$HLDP_PARAM_A"'].join('\n')),
  'piped': tool('piped', ['params_schema:', '  a: { type: string }', 'shell:', '  argv: [cat]', '  stdin: json'].join('\n')),
};

let temp: { path: string; cleanup: () => Promise<void> };

describe('hldp validate of shell tools whose parameters no template uses', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    for (const [name, text] of Object.entries(TOOLS)) {
      await mkdir(join(temp.path, 'tools', name), { recursive: true });
      await writeFile(join(temp.path, 'tools', name, 'TOOL.hdlp'), text);
    }
  });
  afterAll(() => temp?.cleanup());

  it('warns at each unused parameter\'s own line, and of no parameter that argv, env, cwd, select, a script or stdin reads', async () => {
    const run = await runCli(['validate', temp.path, '--json'], { env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_LOG_LEVEL: 'warn' }, cwd: temp.path });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { errors, warnings } = JSON.parse(run.stdout) as Record<'errors' | 'warnings', Array<{ file: string; line: number; column: number; code: string; message: string }>>;
    expect(errors).toEqual([]);
    const unused = warnings.filter((warning) => warning.code === 'UNUSED_PARAMETER').map(({ file, line, column, message }) => ({ tool: file.split('/').at(-2), line, column, message }));
    expect(unused).toEqual([
      { tool: 'count-lines', line: 9, column: 3, message: expect.stringMatching(/^parameter 'max_depth' is declared but no argv template, env value or cwd uses it .*put "\{max_depth\}" where it belongs, or remove the parameter$/) },
      { tool: 'disk-free', line: 9, column: 5, message: expect.stringContaining("parameter 'human' is declared") },
    ]);
  });
});
