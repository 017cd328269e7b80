import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashToken } from '../../src/policy/index.js';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// Review userV: `hldp mcp --toolsets ops` as a principal that may use no tool of ops opened no session, started
// serving anyway and failed each request; /mcp?toolsets=ops refuses the same choice. The command now exits 2 with
// the refusal /mcp gives, as it does for a toolset that does not exist.

const TOKEN = 'ci-token-0123456789abcdef';
let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let config: string;

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-toolsets-');
  config = join(temp.path, 'config.yaml');
  await writeFile(config, `principals:\n  ci: { roles: [agent], tools: [git-ops, file-read], token_sha256: ${hashToken(TOKEN)} }\n`);
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_TOKEN: TOKEN };
});
afterAll(() => temp?.cleanup());

describe('hldp mcp --toolsets, as a principal', () => {
  it('exits 2 with TOOLSET_FORBIDDEN and the toolsets it may use, for a toolset holding none of its tools', async () => {
    const refused = await runCli(['mcp', '--repo', 'native-repo', '--config', config, '--toolsets', 'ops'], { input: '', env });
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('--toolsets: ');
    expect(refused.stderr).toContain('(TOOLSET_FORBIDDEN)');
    expect(refused.stderr).toContain('available: repo');
    expect(refused.code).toBe(2);
  });

  it('still exits 2 naming a toolset that does not exist', async () => {
    const refused = await runCli(['mcp', '--repo', 'native-repo', '--config', config, '--toolsets', 'nope'], { input: '', env });
    expect(refused.stderr).toContain('--toolsets: no toolset nope; available: repo (TOOLSET_NOT_FOUND)');
    expect(refused.code).toBe(2);
  });
});
