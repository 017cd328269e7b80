import { mkdir, mkdtemp, readdir, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArgvTemplate, ShellSpec } from '../../src/core/index.js';
import { execute, type ExecutionContext } from '../../src/executors/index.js';
import { commitFiles, initRepository } from '../helpers/git.js';
import { loadStarterTool, makeToolDefinition } from './support/tool-definitions.js';

const PRINT_ARGV = fileURLToPath(new URL('./fixtures/print-argv.mjs', import.meta.url));

let root: string;
let context: ExecutionContext;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-shell-')));
  await mkdir(join(root, 'work'));
  context = { shell: { root } };
});
afterAll(() => rm(root, { recursive: true, force: true }));

function shellTool(shell: ShellSpec, properties: Record<string, unknown> = {}) {
  return makeToolDefinition({ executor: 'shell', shell, params_schema: { type: 'object', properties } });
}

const printArgv = (...template: ArgvTemplate) => shellTool({ argv: [process.execPath, PRINT_ARGV, ...template] });

describe('shell executor', () => {
  describe('when a parameter carries shell syntax (argv mode)', () => {
    it.each([
      ['a command separator', '; rm -rf x'],
      ['a command substitution', '$(touch pwned)'],
      ['backticks', '`touch pwned`'],
      ['a newline', 'first\ntouch pwned'],
      ['an option', '--output=pwned'],
      ['quotes and globs', `"' * ?`],
      ['a pipe and redirection', '| tee pwned > pwned'],
    ])('returns %s as one verbatim argument and runs nothing', async (_case, value) => {
      const result = await execute(printArgv('{value}'), { value }, { shell: { root: join(root, 'work') } });
      expect(result).toMatchObject({ ok: true, code: null, exit_code: 0 });
      expect(JSON.parse(result.output)).toEqual([value]);
      expect(await readdir(join(root, 'work'))).toEqual([]);
    });
  });

  describe('when the template spreads, stringifies and groups', () => {
    it.each([
      ['a list spreads into whole arguments', ['{files}'], { files: ['a b', 'c;d'] }, ['a b', 'c;d']],
      ['numbers and booleans become text', ['-n', '{limit}', '{force}'], { limit: 5, force: false }, ['-n', '5', 'false']],
      ['an object becomes JSON', ['{filter}'], { filter: { a: 1 } }, ['{"a":1}']],
      ['a placeholder inside text fills one argument', ['--name={name}'], { name: 'x y' }, ['--name=x y']],
      ['a group with a value is included', ['log', ['-n', '{limit}']], { limit: 3 }, ['log', '-n', '3']],
      ['a group without a value is left out', ['log', ['-n', '{limit}'], ['{ref}']], {}, ['log']],
      ['an empty list leaves its group out', ['x', ['--', '{files}']], { files: [] }, ['x']],
    ])('returns the argv when %s', async (_case, template, params, expected) => {
      const result = await execute(printArgv(...(template as ArgvTemplate)), params, context);
      expect(JSON.parse(result.output)).toEqual(expected);
    });

    it('returns EXECUTOR_MISCONFIGURED naming the parameter when a required element has no value', async () => {
      const result = await execute(printArgv('{ref}'), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
      expect(result.error).toContain("parameter 'ref'");
    });

    it.each([
      ['an argument', printArgv('{value}')],
      ['a script variable', shellTool({ script: 'true' }, { value: { type: 'string' } })],
    ])('returns INVALID_PARAMS for a NUL character in %s, running nothing', async (_case, tool) => {
      const result = await execute(tool, { value: 'a\0b' }, context);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS', exit_code: null, error: expect.stringContaining('NUL') });
    });

    it('returns EXECUTOR_MISCONFIGURED when a parameter would choose the program', async () => {
      const result = await execute(shellTool({ argv: ['{program}', 'x'] }), { program: 'rm' }, context);
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining('fixed program') });
    });

    it('fills a missing parameter from its schema default', async () => {
      const tool = makeToolDefinition({ shell: { argv: [process.execPath, PRINT_ARGV, '{limit}'] }, params_schema: { type: 'object', properties: { limit: { type: 'integer', default: 10 } } } });
      expect(JSON.parse((await execute(tool, {}, context)).output)).toEqual(['10']);
    });
  });

  describe('when select picks the template', () => {
    const tool = shellTool({ select: 'op', argv: { one: [process.execPath, PRINT_ARGV, 'one'], two: [process.execPath, PRINT_ARGV, 'two', '{x}'] } });

    it('returns the output of the chosen template', async () => {
      expect(JSON.parse((await execute(tool, { op: 'two', x: 'y' }, context)).output)).toEqual(['two', 'y']);
    });

    it('returns INVALID_PARAMS listing the choices for an unknown value', async () => {
      const result = await execute(tool, { op: 'three' }, context);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining('one, two') });
    });

    it('picks the template keyed "true" or "false" by a boolean: an on/off flag (review userZ3, MEDIUM 3)', async () => {
      const flag = shellTool({ select: 'lines', argv: { true: [process.execPath, PRINT_ARGV, '-l', '{path}'], false: [process.execPath, PRINT_ARGV, '{path}'] } }, { lines: { type: 'boolean' } });
      expect(JSON.parse((await execute(flag, { lines: true, path: 'a' }, context)).output)).toEqual(['-l', 'a']);
      expect(JSON.parse((await execute(flag, { lines: false, path: 'a' }, context)).output)).toEqual(['a']);
    });
  });

  describe('when the tool is a script', () => {
    it('returns what the fixed script made of parameters read from HLDP_PARAM_ variables, none of them parsed', async () => {
      const tool = shellTool({ script: 'printf "%s|%s" "$HLDP_PARAM_VALUE" "$HLDP_PARAM_MAX_COUNT"' }, { value: { type: 'string' }, 'max-count': { type: 'integer' } });
      const result = await execute(tool, { value: '$(touch pwned); `touch pwned`', 'max-count': 3 }, { shell: { root: join(root, 'work') } });
      expect(result).toMatchObject({ ok: true, output: '$(touch pwned); `touch pwned`|3' });
      expect(await readdir(join(root, 'work'))).toEqual([]);
    });

    it('sets no variable for a parameter the schema does not declare: an undeclared PATH leaves the checked path\'s HLDP_PARAM_PATH alone', async () => {
      const tool = shellTool({ script: 'printf "%s|%s" "$HLDP_PARAM_PATH" "${HLDP_PARAM_EXTRA-unset}"' }, { path: { type: 'string', pattern: '^reports/[a-z]+\\.txt$' } });
      const result = await execute(tool, { path: 'reports/a.txt', PATH: 'secret.txt', extra: 'x' }, context);
      expect(result).toMatchObject({ ok: true, output: 'reports/a.txt|unset' });
    });

    it.each([
      [{ path: 'reports/a.txt', PATH: 'secret.txt' }],
      [{ PATH: 'secret.txt' }],
      [{ path: 'reports/a.txt' }],
    ])('returns INVALID_PARAMS and runs nothing when two declared parameters would set one variable: %j', async (params) => {
      const tool = shellTool({ script: 'touch ran; printf %s "$HLDP_PARAM_PATH"' }, { path: { type: 'string' }, PATH: { type: 'string' } });
      const result = await execute(tool, params, { shell: { root: join(root, 'work') } });
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining("parameters 'path' and 'PATH' would all set HLDP_PARAM_PATH") });
      expect(await readdir(join(root, 'work'))).toEqual([]);
    });

    it('returns the full stderr of a failing script', async () => {
      const result = await execute(shellTool({ script: 'echo "no such thing" >&2; exit 2' }), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 2, error: 'no such thing\n', stderr: 'no such thing\n' });
    });
  });

  describe('when stdin is json', () => {
    // a real script that knows nothing of brush-holder: it reads one JSON document from stdin
    const script = `let text = ''; process.stdin.on('data', (chunk) => (text += chunk)); process.stdin.on('end', () => { const params = JSON.parse(text); process.stdout.write(JSON.stringify({ keys: Object.keys(params).sort(), city: params.city, days: params.days })); });`;

    it('returns what the script made of the validated params, defaults filled, read as one JSON document', async () => {
      const tool = makeToolDefinition({
        executor: 'shell',
        shell: { argv: [process.execPath, '-e', script], stdin: 'json' },
        params_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', default: 3 } } },
      });
      const result = await execute(tool, { city: "Череповец'; rm -rf / #\n$(id)" }, context);
      expect(result).toMatchObject({ ok: true, code: null });
      expect(JSON.parse(result.output)).toEqual({ keys: ['city', 'days'], city: "Череповец'; rm -rf / #\n$(id)", days: 3 });
    });

    it('returns ok for a program that exits without reading a large input', async () => {
      const tool = makeToolDefinition({ executor: 'shell', shell: { argv: ['true'], stdin: 'json' }, params_schema: { type: 'object', properties: { blob: { type: 'string' } } } });
      expect(await execute(tool, { blob: 'x'.repeat(4 * 1024 * 1024) }, context)).toMatchObject({ ok: true, exit_code: 0 });
    });

    it('returns end of input at once for a tool without it: stdin stays closed', async () => {
      const result = await execute(shellTool({ argv: [process.execPath, '-e', script.replace('JSON.parse(text)', '({ text })')] }), {}, context);
      expect(result).toMatchObject({ ok: true, output: '{"keys":["text"]}' });
    });
  });

  describe('when the gateway holds secrets in its environment', () => {
    const secretName = 'HLDP_TEST_GATEWAY_SECRET';

    beforeAll(() => {
      process.env[secretName] = 'do-not-leak-this-value';
    });
    afterAll(() => {
      delete process.env[secretName];
    });

    it('returns an environment without them, with PATH and the definition env', async () => {
      const result = await execute(shellTool({ script: 'env', env: { GREETING: 'hi {who}' } }, {}), { who: 'you' }, context);
      expect(result.output).not.toContain('do-not-leak-this-value');
      expect(result.output).toMatch(/^PATH=/m);
      expect(result.output).toMatch(/^GREETING=hi you$/m);
    });

    it('returns a variable the config names in inheritEnv', async () => {
      const result = await execute(shellTool({ script: `printf %s "$${secretName}"` }), {}, { shell: { root, inheritEnv: [secretName] } });
      expect(result.output).toBe('do-not-leak-this-value');
    });

    it.each(['PATH', 'GIT_CONFIG_PARAMETERS', 'HOME', 'LD_PRELOAD', 'PYTHONPATH', 'npm_config_script_shell', 'PAGER', 'BASH_FUNC_ls%%', 'ZDOTDIR', 'GOFLAGS', 'SSLKEYLOGFILE', 'NODE_OPTIONS', 'RUBYOPT', 'PERL5OPT', 'JAVA_TOOL_OPTIONS', 'BASH_ENV', 'ENV'])(
      'returns EXECUTOR_MISCONFIGURED when a parameter would set %s, and runs nothing',
      async (name) => {
        const result = await execute(shellTool({ argv: ['sh', '-c', 'echo ran'], env: { [name]: '{dir}' } }), { dir: '/tmp/evil' }, context);
        expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', output: '' });
        expect(result.error).toMatch(new RegExp(`'${name}' may not take a parameter`));
      },
    );

    it.each(['LD_PRELOAD', 'GCONV_PATH', 'BASH_ENV'])('returns EXECUTOR_MISCONFIGURED when the tool sets %s even to a fixed value, and runs nothing', async (name) => {
      const result = await execute(shellTool({ argv: ['sh', '-c', 'echo ran'], env: { [name]: '/tmp/x' } }), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', output: '' });
      expect(result.error).toMatch(new RegExp(`'${name}' may not be set by a tool, even to a fixed value`));
    });

    // review P, P1: `env -i` splits `BASH_ENV=/ws/evil=.sh` at its first '=', so the key set BASH_ENV to /ws/evil=.sh
    it.each([['BASH_ENV=/tmp/evil', "would set 'BASH_ENV'"], ['GCONV_PATH=/tmp/gc', "would set 'GCONV_PATH'"], ['', 'is not a variable name']])(
      'returns EXECUTOR_MISCONFIGURED for the key %j, which is no variable name, and runs nothing',
      async (name, reason) => {
        const result = await execute(shellTool({ argv: ['sh', '-c', 'echo "ran $BASH_ENV"'], env: { [name]: '.sh' } }), {}, context);
        expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', output: '' });
        expect(result.error).toContain(reason);
      },
    );

    it('never lets a parameter define a bash function (BASH_FUNC_ls%%) that bash -c ls would run', async () => {
      const tool = shellTool({ argv: ['bash', '-c', 'ls'], env: { 'BASH_FUNC_ls%%': '{p}' } }, { p: { type: 'string' } });
      const result = await execute(tool, { p: '() { id; }' }, context);
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', output: '' });
      expect(result.error).toMatch(/not a plain variable name/);
    });

    it('sets such a variable to the fixed value the definition gives', async () => {
      const result = await execute(shellTool({ script: 'printf %s "$GIT_CONFIG_NOSYSTEM"', env: { GIT_CONFIG_NOSYSTEM: '1' } }), {}, context);
      expect(result.output).toBe('1');
    });
  });

  describe('when the working directory is given', () => {
    beforeAll(async () => {
      await symlink(tmpdir(), join(root, 'escape'));
      await symlink(join(root, 'work'), join(root, 'inner'));
    });

    it.each(['work', 'inner', 'work/../work'])('returns the output of a run inside the root for %s', async (cwd) => {
      const result = await execute(shellTool({ script: 'pwd -P', cwd: '{dir}' }), { dir: cwd }, context);
      expect(result).toMatchObject({ ok: true, output: `${join(root, 'work')}\n` });
    });

    it.each(['..', '../..', '/etc', 'escape', 'work/../../'])('returns PATH_OUTSIDE_ROOT for %s, running nothing', async (cwd) => {
      const refused = await execute(shellTool({ script: 'touch ran-outside', cwd: '{dir}' }), { dir: cwd }, context);
      expect(refused).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT', exit_code: null });
    });

    it('returns the root as the working directory when the cwd parameter is missing', async () => {
      const result = await execute(shellTool({ script: 'pwd -P', cwd: '{dir}' }), {}, context);
      expect(result.output).toBe(`${root}\n`);
    });
  });

  describe('when no shell root is configured', () => {
    it('returns EXECUTOR_MISCONFIGURED naming the config key', async () => {
      const result = await execute(shellTool({ script: 'true' }), {}, {});
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining('shell.root') });
    });
  });

  describe('when the starter tool git-ops runs on a real repository', () => {
    beforeAll(async () => {
      await initRepository(join(root, 'repo'));
      await commitFiles(join(root, 'repo'), { 'a.txt': 'one' }, 'first commit');
      await commitFiles(join(root, 'repo'), { 'a.txt': 'two' }, 'second commit');
    });

    it('returns the raw git log, limited by the limit parameter', async () => {
      const result = await execute(loadStarterTool('git-ops'), { op: 'log', limit: 1, path: 'repo' }, context);
      expect(result).toMatchObject({ ok: true, exit_code: 0 });
      expect(result.output).toMatch(/^[0-9a-f]+ \(HEAD -> main\) second commit\n$/);
    });

    it('returns git’s own stderr for a ref that does not exist', async () => {
      const result = await execute(loadStarterTool('git-ops'), { op: 'show', ref: 'no-such-ref', path: 'repo' }, context);
      expect(result).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 128 });
      expect(result.error).toContain('no-such-ref');
    });
  });
});
