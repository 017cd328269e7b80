import { chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { mcpToolYaml, PROJECT_ROOT, writeMcpConfig } from './support.js';

// Review N (N20): the README's `npx` MCP server could not start: it declared `~/.npm` writable, which the sandbox
// refuses (a dot-entry of the home folder: SANDBOX_UNAVAILABLE), and under sandbox.run_as root's ~/.npm is not the
// user's anyway. The README now gives npx a cache folder of its own (npm_config_cache, declared under write, owned by
// the run_as user). This runs that shape with a real `hldp call` (as root: run as nobody, the default run_as) and the
// real server-everything, which npx finds in this checkout's packages (cwd), so that no registry is needed.
const NOBODY = 65534;
let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  temp = await makeTempDir('hldp-npx-server-');
});
afterAll(() => temp.cleanup());

describe("the README's npx MCP server (review N, N20)", () => {
  it('starts with its own npm cache and answers a call', async () => {
    const cache = join(temp.path, 'npm-cache');
    await mkdir(cache);
    // `install -d -o nobody FOLDER`, as the README says; a gateway not run as root runs the server as itself
    if (process.getuid?.() === 0) await chown(cache, NOBODY, NOBODY);
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/echo/TOOL.hdlp': mcpToolYaml('echo', 'everything', 'echo', '{ message: { type: string, required: true } }', '{ timeout_ms: 60000 }') });
    const config = await writeMcpConfig(temp.path, {
      everything: {
        command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { npm_config_cache: cache }, cwd: PROJECT_ROOT, startup_timeout_ms: 60_000,
        sandbox: { network: true, filesystem: { read: [PROJECT_ROOT], write: [cache] } },
      },
    });
    await mkdir(join(temp.path, 'workspace'));
    const run = await runCli(['call', 'echo', '--repo', repo, '--config', config, '--params', '{"message":"hi from npx"}', '--json'], {
      env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn' },
      timeoutMs: 90_000,
    });
    const receipt = JSON.parse(run.stdout) as { ok: boolean; output: string; error: string | null };
    expect({ ok: receipt.ok, output: receipt.output, error: receipt.error }).toEqual({ ok: true, output: 'Echo: hi from npx', error: null });
  }, 120_000);
});
