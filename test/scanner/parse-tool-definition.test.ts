import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { makeToolYaml } from '../helpers/git.js';

const parse = (text: string, folder = 'demo') =>
  parseToolDefinition({ path: `tools/${folder}/TOOL.hdlp`, folder, oid: 'oid-1', content: Buffer.from(text) });

describe('parseToolDefinition', () => {
  describe('when given the starter tools', () => {
    it.each(readdirSync('native-repo/tools'))('accepts %s without diagnostics', (name) => {
      const parsed = parseToolDefinition({
        path: `tools/${name}/TOOL.hdlp`,
        folder: name,
        oid: 'x',
        content: readFileSync(`native-repo/tools/${name}/TOOL.hdlp`),
      });
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.tool?.name).toBe(name);
    });
  });

  describe('when given the spec example', () => {
    const spec = `name: shell-exec
display: Shell命令执行
intent: 在服务器上执行一条shell命令并返回结果
method: exec
executor: gatekeeper
params_schema:
  cmd: { type: string, required: true, description: "要执行的shell命令" }
  cwd: { type: string, required: false, description: "工作目录" }
constraints:
  timeout_ms: 30000
  max_output_bytes: 65536
  require_confirm: false
author: ICE-GL-ZY001
created: 2026-05-31
why: 铸渊需要通过gatekeeper执行服务器命令。这是所有系统操作的基础工具。
`;
    it('turns the shorthand params into a real JSON Schema', () => {
      const { tool } = parse(spec, 'shell-exec');
      expect(tool?.params_schema).toEqual({
        type: 'object',
        properties: {
          cmd: { type: 'string', description: '要执行的shell命令' },
          cwd: { type: 'string', description: '工作目录' },
        },
        required: ['cmd'],
        additionalProperties: false,
      });
    });

    it('keeps every field of §7 and records where it came from', () => {
      const { tool } = parse(spec, 'shell-exec');
      expect(tool).toMatchObject({
        name: 'shell-exec',
        display: 'Shell命令执行',
        executor: 'gatekeeper',
        method: 'exec',
        author: 'ICE-GL-ZY001',
        created: '2026-05-31',
        constraints: { timeout_ms: 30000, max_output_bytes: 65536, require_confirm: false },
        source: { path: 'tools/shell-exec/TOOL.hdlp', oid: 'oid-1' },
      });
    });
  });

  describe('when constraints are omitted', () => {
    it('fills the defaults: 30 s, 64 KiB, no confirmation', () => {
      const { tool } = parse(makeToolYaml('demo'));
      expect(tool?.constraints).toEqual({ timeout_ms: 30000, max_output_bytes: 65536, require_confirm: false });
    });
  });

  describe('when the executor is spelled hlpd-api', () => {
    it('reads it as hldp-api and warns at the executor line', () => {
      const parsed = parse(makeToolYaml('demo', { executor: 'hlpd-api', method: 'get', http: '{ path: /status }' }));
      expect(parsed.tool?.executor).toBe('hldp-api');
      expect(parsed.diagnostics).toEqual([
        expect.objectContaining({ severity: 'warning', code: 'DEPRECATED_SPELLING', line: 5, column: 11 }),
      ]);
    });
  });

  describe('when a script tool declares two parameters that set one variable', () => {
    it.each([
      ['differ in case', '{ path: { type: string }, PATH: { type: string } }', "'path' and 'PATH' would all set HLDP_PARAM_PATH"],
      ['differ in punctuation', '{ max-count: { type: integer }, max_count: { type: integer } }', "'max-count' and 'max_count' would all set HLDP_PARAM_MAX_COUNT"],
    ])('warns (SHARED_SCRIPT_VARIABLE) when their names %s, and still loads the tool', (_case, schema, message) => {
      const parsed = parse(makeToolYaml('demo', { executor: 'shell', params_schema: schema, shell: '{ script: "true" }' }));
      expect(parsed.tool?.name).toBe('demo');
      expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'SHARED_SCRIPT_VARIABLE', message: expect.stringContaining(message) })]);
    });

    it('says nothing of an argv tool, whose parameters set no variables', () => {
      const parsed = parse(makeToolYaml('demo', { executor: 'shell', params_schema: '{ path: { type: string, required: true }, PATH: { type: string, required: true } }', shell: '{ argv: [ls, --, "{path}", "{PATH}"] }' }));
      expect(parsed.diagnostics).toEqual([]);
    });
  });

  describe('when a parameter is a whole argument of a program', () => {
    // required: an optional parameter outside a group is UNFILLABLE_TEMPLATE, a check of its own
    const shellTool = (argv: string, schema = '{ p: { type: string, required: true } }') => makeToolYaml('demo', { executor: 'shell', params_schema: schema, shell: `{ argv: ${argv} }` });

    it('warns that a value starting with - would be an option, and still loads the tool', () => {
      const parsed = parse(shellTool('[ls, "{p}"]'));
      expect(parsed.tool?.name).toBe('demo');
      expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'OPTION_LIKE_ARGUMENT', line: 10 })]);
      expect(parsed.diagnostics[0]?.message).toMatch(/parameter 'p' is a whole argument: a value starting with '-' would be read as an option/);
    });

    it.each([
      ['after --', '[ls, --, "{p}"]', undefined],
      ['after --end-of-options', '[git, log, --end-of-options, "{p}"]', undefined],
      ["as an option's value", '[git, commit, -m, "{p}"]', undefined],
      ['in an optional group as a value', '[git, log, [-n, "{p}"]]', undefined],
      ['with a pattern', '[ls, "{p}"]', '{ p: { type: string, required: true, pattern: "^[a-z]+$" } }'],
      ['with an enum', '[ls, "{p}"]', '{ p: { type: string, required: true, enum: [a, b] } }'],
      ['as an integer', '[head, -n, "5", "{p}"]', '{ p: { type: integer, required: true } }'],
    ])('does not warn %s', (_case, argv, schema) => {
      expect(parse(shellTool(argv, schema)).diagnostics).toEqual([]);
    });
  });

  describe('when a shell tool takes its params as JSON on stdin', () => {
    it('keeps stdin: json in the definition', () => {
      const { tool, diagnostics } = parse(makeToolYaml('demo', { executor: 'shell', params_schema: '{ city: { type: string } }', shell: '{ argv: [./weather.py], stdin: json }' }));
      expect(diagnostics).toEqual([]);
      expect(tool?.shell).toEqual({ argv: ['./weather.py'], stdin: 'json' });
    });
  });

  describe('when a full JSON Schema is given', () => {
    it('keeps it as written', () => {
      const schema = '{ type: object, properties: { q: { type: string } }, required: [q] }';
      const { tool } = parse(makeToolYaml('demo', { params_schema: schema }));
      expect(tool?.params_schema).toEqual({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    });
  });

  describe('when the definition is broken', () => {
    it.each([
      ['not YAML', 'name: demo\ndisplay: [unclosed\nintent: x\n', 'YAML_SYNTAX', 3, /Flow sequence/],
      ['a duplicate key', 'name: demo\nname: other\n', 'YAML_SYNTAX', 2, /key 'name' is written twice in one mapping \(first at line 1\): keep one/],
      ['a scalar document', 'just some text', 'SCHEMA_VIOLATION', 1, /must be a YAML mapping/],
      ['an unknown field', makeToolYaml('demo') + 'colour: red\n', 'SCHEMA_VIOLATION', 10, /unknown field 'colour'; allowed: name, display/],
      ['a missing why', makeToolYaml('demo').replace(/^why:.*\n/m, ''), 'SCHEMA_VIOLATION', 1, /missing required field 'why'/],
      ['a missing author', makeToolYaml('demo').replace(/^author:.*\n/m, ''), 'SCHEMA_VIOLATION', 1, /missing required field 'author'/],
      ['a wrong type', makeToolYaml('demo') + 'constraints:\n  timeout_ms: "5s"\n', 'SCHEMA_VIOLATION', 11, /'constraints.timeout_ms' must be integer/],
      ['an unknown executor', makeToolYaml('demo', { executor: 'ssh' }), 'SCHEMA_VIOLATION', 5, /'executor' must be one of: shell, gatekeeper, hldp-api, git-forgejo, mcp$/],
      ['a name with a space', makeToolYaml('demo', { name: 'my tool' }), 'SCHEMA_VIOLATION', 1, /'name' must be ASCII letters/],
      ['a name unlike its folder', makeToolYaml('other'), 'NAME_MISMATCH', 1, /'name' is 'other' but the folder is 'demo'/],
      ['a date that is not ISO', makeToolYaml('demo', { created: 'yesterday' }), 'SCHEMA_VIOLATION', 8, /ISO date/],
      ['a param type typo', makeToolYaml('demo', { params_schema: '\n  q: { type: strng }' }), 'SCHEMA_VIOLATION', 7, /'params_schema.q.type' must be a JSON Schema type/],
      ['a JSON Schema keyword typo', makeToolYaml('demo', { params_schema: '\n  q: { type: string, requird: true }' }), 'INVALID_PARAMS_SCHEMA', 7, /unknown JSON Schema keyword 'requird'/],
      ['an invalid JSON Schema value', makeToolYaml('demo', { params_schema: '\n  q: { type: string, minLength: -1 }' }), 'INVALID_PARAMS_SCHEMA', 7, /'params_schema.q.minLength' is not valid JSON Schema/],
      ['a shell tool without argv or script', makeToolYaml('demo', { executor: 'shell' }), 'SCHEMA_VIOLATION', 1, /missing required field 'shell'/],
      ['a shell tool with both argv and script', makeToolYaml('demo', { executor: 'shell', shell: '{ argv: [ls], script: ls }' }), 'SCHEMA_VIOLATION', 10, /exactly one of: 'argv', 'script'/],
      ['a placeholder for no parameter', makeToolYaml('demo', { executor: 'shell', shell: '{ argv: [ls, "{dir}"] }' }), 'UNKNOWN_PLACEHOLDER', 10, /placeholder 'dir' is not a parameter/],
      ['a parameter in a variable a program obeys', makeToolYaml('demo', { executor: 'shell', params_schema: '{ c: { type: string } }', shell: '{ argv: [git, diff], env: { GIT_CONFIG_PARAMETERS: "{c}" } }' }), 'UNSAFE_ENV_VARIABLE', 10, /'shell.env.GIT_CONFIG_PARAMETERS' may not take a parameter/],
      ['a parameter in a variable bash imports as a function', makeToolYaml('demo', { executor: 'shell', params_schema: '{ p: { type: string } }', shell: '{ argv: [bash, -c, ls], env: { "BASH_FUNC_ls%%": "{p}" } }' }), 'UNSAFE_ENV_VARIABLE', 10, /'BASH_FUNC_ls%%' is not a plain variable name/],
      ...['ZDOTDIR', 'GOFLAGS', 'SSLKEYLOGFILE', 'NODE_OPTIONS', 'RUBYOPT', 'PERL5OPT', 'JAVA_TOOL_OPTIONS', 'BASH_ENV', 'ENV'].map(
        (name): [string, string, string, number, RegExp] => [`a parameter in ${name}`, makeToolYaml('demo', { executor: 'shell', params_schema: '{ p: { type: string } }', shell: `{ argv: [ls], env: { ${name}: "{p}" } }` }), 'UNSAFE_ENV_VARIABLE', 10, new RegExp(`'shell.env.${name}' may not take a parameter: a program would run or obey`)],
      ),
      // review O, O1 and O2: a loader or shell-startup variable ran the tool's code in the programs that set its run up
      ...['LD_PRELOAD', 'LD_LIBRARY_PATH', 'GCONV_PATH', 'GLIBC_TUNABLES', 'BASH_ENV', 'ENV', '"BASH_FUNC_ls%%"'].map(
        (name): [string, string, string, number, RegExp] => [`${name} set to a fixed value`, makeToolYaml('demo', { executor: 'shell', shell: `{ argv: [ls], env: { ${name}: /tmp/x } }` }), 'UNSAFE_ENV_VARIABLE', 10, new RegExp(`'shell.env.${name.replaceAll('"', '')}' may not be set by a tool, even to a fixed value: the dynamic loader or a shell would load or run`)],
      ),
      ['an optional parameter without a default outside a group', makeToolYaml('demo', { executor: 'shell', params_schema: '{ op: { type: string, enum: [memory], default: memory }, unit: { type: string } }', shell: '{ select: op, argv: { memory: [free, "{unit}"] } }' }), 'UNFILLABLE_TEMPLATE', 10, /argv element '\{unit\}' needs parameter 'unit', which is optional and has no default.*optional group \["\{unit\}"\]/],
      ['a placeholder in the program', makeToolYaml('demo', { executor: 'shell', params_schema: '{ p: { type: string, required: true } }', shell: '{ argv: ["{p}", x] }' }), 'UNFILLABLE_TEMPLATE', 10, /the program '\{p\}' must be fixed text/],
      ['a list parameter inside a longer text', makeToolYaml('demo', { executor: 'shell', params_schema: '{ l: { type: array, required: true, items: { type: string } } }', shell: '{ argv: [echo, "--x={l}"] }' }), 'UNFILLABLE_TEMPLATE', 10, /mixes text with list parameter 'l'/],
      ['an argv element that is a map', makeToolYaml('demo', { executor: 'shell', shell: '{ argv: [seq, { a: 1 }] }' }), 'SCHEMA_VIOLATION', 10, /'shell.argv.1' must be an argument/],
      ['a pattern RE2 cannot run', makeToolYaml('demo', { params_schema: '\n  ref: { type: string, pattern: "^(?!-).*$" }' }), 'UNSUPPORTED_PATTERN', 7, /pattern '\^\(\?!-\)\.\*\$' cannot run on RE2.*look-around/],
      ['a patternProperties key RE2 cannot run', makeToolYaml('demo', { params_schema: '\n  type: object\n  patternProperties: { "(a)\\\\1": { type: string } }' }), 'UNSUPPORTED_PATTERN', 8, /cannot run on RE2/],
      ['a max_timeout_ms below timeout_ms', makeToolYaml('demo') + 'constraints:\n  timeout_ms: 5000\n  max_timeout_ms: 1000\n', 'SCHEMA_VIOLATION', 12, /'constraints.max_timeout_ms' \(1000\) is below timeout_ms \(5000\)/],
      ['a stdin mode other than json', makeToolYaml('demo', { executor: 'shell', shell: '{ argv: [cat], stdin: yaml }' }), 'SCHEMA_VIOLATION', 10, /'shell.stdin' must be one of: json/],
      ['a select without enum', makeToolYaml('demo', { executor: 'shell', params_schema: '{ op: { type: string } }', shell: '{ select: op, argv: { a: [ls] } }' }), 'UNKNOWN_PLACEHOLDER', 6, /needs an 'enum'/],
    ])('reports %s with its line and reason', (_case, text, code, line, message) => {
      const parsed = parse(text);
      expect(parsed.tool).toBeNull();
      const error = parsed.diagnostics.find((diagnostic) => diagnostic.severity === 'error');
      expect(error).toMatchObject({ file: 'tools/demo/TOOL.hdlp', code, line });
      expect(error?.message).toMatch(message);
    });

    it.each([
      ['numbers', '{ argv: [seq, 1, 100000] }', ['seq', '1', '100000']],
      ['booleans and a number in a group', '{ argv: [tool, [--flag, true], 2.5] }', ['tool', ['--flag', 'true'], '2.5']],
    ])('accepts %s in argv as literal arguments', (_case, shell, argv) => {
      const parsed = parse(makeToolYaml('demo', { executor: 'shell', shell }));
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.tool?.shell?.argv).toEqual(argv);
    });

    it('accepts an optional parameter in an optional group, or with a default', () => {
      const parsed = parse(makeToolYaml('demo', { executor: 'shell', params_schema: '{ a: { type: string }, b: { type: string, default: x } }', shell: '{ argv: [ls, ["{a}"], "{b}"] }' }));
      expect(parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    });

    it('accepts a plain variable name for a parameter', () => {
      const parsed = parse(makeToolYaml('demo', { executor: 'shell', params_schema: '{ p: { type: string } }', shell: '{ argv: [ls], env: { MY_SETTING: "{p}" } }' }));
      expect(parsed.tool).not.toBeNull();
    });

    it('refuses a file that is not UTF-8', () => {
      const parsed = parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'x', content: Uint8Array.from([0xff, 0xfe, 0x00, 0x41]) });
      expect(parsed.diagnostics[0]).toMatchObject({ code: 'NOT_UTF8', line: 1, column: 1 });
    });

    it('refuses an oversized file without parsing it', () => {
      const parsed = parse(makeToolYaml('demo') + `why2: ${'x'.repeat(1024 * 1024)}\n`);
      expect(parsed.diagnostics[0]).toMatchObject({ code: 'FILE_TOO_LARGE' });
      expect(parsed.diagnostics[0]!.message).toMatch(/the limit is 1048576/);
    });

    it('takes the size limit it is given', () => {
      const text = makeToolYaml('demo');
      expect(parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'x', content: Buffer.from(text) }, { maxBytes: 10 }).diagnostics[0]).toMatchObject({ code: 'FILE_TOO_LARGE' });
    });

    it('stops a YAML alias bomb with a diagnostic at its first alias', () => {
      const bomb = makeToolYaml('demo') + 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
      const parsed = parse(bomb);
      expect(parsed.tool).toBeNull();
      expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: 'YAML_RESOURCE_LIMIT', line: 11, column: 8, message: expect.stringMatching(/alias bomb/) })]);
    });
  });
});
