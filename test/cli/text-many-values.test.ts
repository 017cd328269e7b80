// sig27, after yaml26 (review Z18, Z18-3): a definition's values are counted from yaml's lexer before yaml builds it,
// but other texts we did not write were still built whole by yaml: a config file (`--config`, HLDP_CONFIG), and the
// existing TOOL.hdlp `hldp import mcp --force` refreshes. A 660 KB config of 330,000 values cost `hldp validate
// --config` ~3.4 s of CPU and ~410 MB before its schema refused it (one run at load 18); one nested 500,000 levels deep
// stacked as many collections. Each now goes through the one counted reading (countedDocument): the config is refused
// at its line with the scan's reason, and --force drafts anew over a definition the scan refuses, as over one that is
// no YAML mapping. Every command here runs with a 192 MB heap.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { nodeServer, writeMcpConfig } from '../mcp-servers/support.js';

const GOOD = ['name: good', 'display: good', 'intent: say hello', 'method: run', 'executor: shell', 'shell: {argv: [echo, hello]}', 'params_schema: {}', 'author: T-1', 'created: 2026-12-04', 'why: test', ''].join('\n');
const MANY = `[${Array(330_000).fill('a').join(',')}]`;
const SERVER = join(import.meta.dirname, '..', 'mcp-servers', 'fixtures', 'cwd-server.mjs');

let home: { path: string; cleanup: () => Promise<void> };
const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ NODE_OPTIONS: '--max-old-space-size=192', HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_WORKSPACE: home.path, HLDP_LOG_LEVEL: 'warn', ...more });

beforeAll(async () => {
  home = await makeTempDir('hldp-text-many-');
  await mkdir(join(home.path, 'registry', 'tools', 'good'), { recursive: true });
  await writeFile(join(home.path, 'registry', 'tools', 'good', 'TOOL.hdlp'), GOOD);
});
afterAll(async () => home?.cleanup());

describe('a config file past what yaml is let build', () => {
  it.each([
    { what: 'of 330,000 values (660 KB)', text: `log_level: warn\nsandbox:\n  mode: auto\n  x: ${MANY}\n`, line: 4, reason: 'YAML holds more than 100000 values once its aliases are expanded; use anchors less, or write less' },
    { what: 'nested 500,000 levels deep', text: `log_level: warn\nx: ${'['.repeat(500_000)}\n`, line: 2, reason: 'YAML nested more than 64 levels deep; flatten it' },
  ])('$what: hldp validate --config refuses it at its line, saying why, within a 192 MB heap', { timeout: 120_000 }, async ({ text, line, reason }) => {
    const config = join(home.path, 'config.yaml');
    await writeFile(config, text);
    const run = await runCli(['validate', '.', '--config', config], { cwd: join(home.path, 'registry'), env: env(), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe(`hldp validate: ${config}:${line}:1: ${reason}\n`);
  });
});

describe('hldp import mcp --force over a TOOL.hdlp past what yaml is let build', () => {
  it('drafts it anew, as over a file that is no YAML mapping, within a 192 MB heap', { timeout: 120_000 }, async () => {
    const config = await writeMcpConfig(home.path, { files: nodeServer(SERVER) });
    const tools = join(home.path, 'checkout', 'tools');
    await mkdir(join(tools, 'mcp_files_where'), { recursive: true });
    const definition = join(tools, 'mcp_files_where', 'TOOL.hdlp');
    await writeFile(definition, `name: mcp_files_where\nauthor: a reviewer\naliases: ${MANY}\n`);
    const run = await runCli(['import', 'mcp', '--server', 'files', '--out', tools, '--force'], { env: env({ HLDP_CONFIG: config }), timeoutMs: 100_000 });
    expect(run.code, run.stderr).toBe(0);
    const written = await readFile(definition, 'utf8');
    expect(written).toMatch(/^name: mcp_files_where$/m);
    expect(written).toMatch(/^executor: mcp$/m);
    expect(written).not.toContain('a reviewer');
    expect(written.length).toBeLessThan(10_000);
  });
});
