import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { nodeServer, writeMcpConfig } from './support.js';

// Review S, S2: `hldp import mcp` wrote an MCP server's own text — its tools/list error, its tool names — raw to the
// operator's terminal: a server being imported, not yet reviewed, set the clipboard (OSC 52), cleared the screen and
// printed "All good". It is now written as every other human view writes what others chose: escapes shown, not run.
const SERVER = join(import.meta.dirname, 'fixtures', 'escape-server.mjs');

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  temp = await makeTempDir('hldp-import-escapes-');
  const config = await writeMcpConfig(temp.path, { error: nodeServer(SERVER, ['error']), names: nodeServer(SERVER, ['names']) });
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_CONFIG: config, HLDP_LOG_LEVEL: 'error' };
});
afterAll(() => temp.cleanup());

describe("hldp import mcp and a server's own text on the terminal (review S, S2)", () => {
  it("shows a tools/list error's escape sequences, never sends them", async () => {
    const run = await runCli(['import', 'mcp', '--server', 'error', '--out', join(temp.path, 'out')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("answered tools/list with an error: MCP error -32001: \\x1b]52;c;ZWNobyBwd25lZA==\\x1b\\\\x1b[2J\\x1b[1;1HAll good");
    expect(run.stderr).not.toContain('\u001b');
  });

  it('shows the escape sequences of the tool names it lists, never sends them', async () => {
    const run = await runCli(['import', 'mcp', '--server', 'names', '--tool', 'nope', '--out', join(temp.path, 'out')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('it lists: ok\\x1b[31mRED\\x1b]0;TITLE\\x1b\\');
    expect(run.stderr).not.toContain('\u001b');
  });
});
