import { describe, expect, it } from 'vitest';
import { parseByteSize } from '../../src/core/index.js';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const parse = (sandbox: string, overrides: Record<string, string> = {}) =>
  parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'oid-1', content: Buffer.from(makeToolYaml('demo', { sandbox, ...overrides })) });

describe('a sandbox: block in TOOL.hdlp', () => {
  describe('when it is valid', () => {
    it('keeps what it declares, sizes in bytes, and leaves the rest to the defaults', () => {
      const parsed = parse('{ network: true, filesystem: { read: [/opt/data], write: [out] }, limits: { memory: 512MiB, file_size: 64K, cpu_seconds: 5, processes: 16 } }');
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.tool?.sandbox).toEqual({
        network: true,
        filesystem: { read: ['/opt/data'], write: ['out'] },
        limits: { memory: 512 * 1024 * 1024, file_size: 64 * 1024, cpu_seconds: 5, processes: 16 },
      });
    });

    it('leaves the definition without one when none is written', () => {
      const parsed = parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'x', content: Buffer.from(makeToolYaml('demo')) });
      expect(parsed.tool).not.toHaveProperty('sandbox');
    });
  });

  describe('when it cannot be applied', () => {
    it.each([
      ['{ network: [example.com] }', 'SCHEMA_VIOLATION', /'sandbox.network' must be boolean/],
      ['{ limits: { memory: lots } }', 'SCHEMA_VIOLATION', /a size: an integer number of bytes, or a string such as 512MiB/],
      ['{ limits: { memory: 1MiB } }', 'INVALID_SANDBOX', /'sandbox.limits.memory' must be at least 16 MiB; 1 MiB cannot even start a shell/],
      ['{ limits: { processes: 0 } }', 'SCHEMA_VIOLATION', /'sandbox.limits.processes' must be >= 1/],
      ['{ limits: { swap: 1G } }', 'SCHEMA_VIOLATION', /swap/],
      ['{ filesystem: { write: [""] } }', 'SCHEMA_VIOLATION', /sandbox.filesystem.write/],
    ])('reports %s at its line with %s', (sandbox, code, message) => {
      const parsed = parse(sandbox);
      expect(parsed.tool).toBeNull();
      const diagnostic = parsed.diagnostics.find((found) => found.severity === 'error');
      expect(diagnostic).toMatchObject({ code, line: 10 });
      expect(diagnostic?.message).toMatch(message);
    });
  });

  describe('when the tool starts no local process', () => {
    it('warns that the block has no effect, and keeps the tool', () => {
      const parsed = parse('{ network: true }', { executor: 'hldp-api', method: 'get', http: '{ path: /x }' });
      expect(parsed.tool).not.toBeNull();
      expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'SANDBOX_IGNORED', line: 10, column: 1 })]);
    });
  });
});

describe('hldp validate', () => {
  it('reports a sandbox block that cannot be applied as file:line:col, and one without effect as a warning', async () => {
    const temp = await makeTempDir();
    try {
      await writeFiles(temp.path, {
        'tools/tiny/TOOL.hdlp': makeToolYaml('tiny', { executor: 'shell', method: 'run', shell: '{ argv: [echo] }', sandbox: '{ limits: { memory: 4M } }' }),
        'tools/remote/TOOL.hdlp': makeToolYaml('remote', { executor: 'hldp-api', method: 'get', http: '{ path: /x }', sandbox: '{ network: true }' }),
      });
      const run = await runCli(['validate'], { cwd: temp.path });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe(
        "tools/remote/TOOL.hdlp:11:1: warning: 'sandbox' has no effect here: only shell tools and the gatekeeper's exec start local processes\n" +
          "tools/tiny/TOOL.hdlp:11:30: error: 'sandbox.limits.memory' must be at least 16 MiB; 4 MiB cannot even start a shell\n",
      );
    } finally {
      await temp.cleanup();
    }
  });
});

describe('parseByteSize', () => {
  it.each([
    [1024, 1024],
    ['1024', 1024],
    ['64K', 65_536],
    ['64KiB', 65_536],
    ['512M', 536_870_912],
    ['512mib', 536_870_912],
    ['1GiB', 1_073_741_824],
    ['2 G', 2_147_483_648],
    ['100B', 100],
  ])('reads %j as %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each([['lots'], ['1.5G'], ['-1'], ['1GB2'], [1.5], [-3], [null], ['99999999999T']])('refuses %j', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});
