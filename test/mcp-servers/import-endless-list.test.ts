import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { nodeServer, writeMcpConfig } from './support.js';

// An MCP server whose tools/list never ends (review E7): the importer followed nextCursor until its 60 s timeout,
// growing by ~100 MB every 5 s. It must stop at a bound and say why.
const ENDLESS = join(import.meta.dirname, 'fixtures', 'endless-list-server.mjs');

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  temp = await makeTempDir('hldp-import-endless-');
  const config = await writeMcpConfig(temp.path, {
    // a server that answers a new cursor every page, one that answers the same cursor again, and one with huge pages
    fresh: nodeServer(ENDLESS),
    again: nodeServer(ENDLESS, [], { env: { CURSOR: 'again' } }),
    wide: nodeServer(ENDLESS, [], { env: { PER_PAGE: '4000' } }),
    // review S, S8: one page, no nextCursor, one tool past the cap
    single: nodeServer(ENDLESS, [], { env: { PER_PAGE: '10001', PAGES: '1' } }),
  });
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_CONFIG: config };
});
afterAll(() => temp.cleanup());

async function importFrom(server: string): Promise<{ code: number; stderr: string }> {
  return runCli(['import', 'mcp', '--server', server, '--out', join(temp.path, 'out', server)], { env, timeoutMs: 50_000 });
}

describe('hldp import mcp from a server whose tools/list never ends (found in review E7)', () => {
  it('stops after 100 pages of new cursors, exits 1 and names the bound', async () => {
    const run = await importFrom('fresh');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("MCP server 'fresh' answered more than 100 pages of tools/list");
  });

  it('stops at a cursor it has already been given', async () => {
    const run = await importFrom('again');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("MCP server 'again' answered tools/list with a nextCursor it had already given (after 2 pages");
  });

  it('stops past 10,000 tools', async () => {
    const run = await importFrom('wide');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("MCP server 'wide' listed more than 10000 tools (12000 in 3 pages");
  });

  it('stops past 10,000 tools in a single page too, writing nothing (review S, S8)', async () => {
    const run = await importFrom('single');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("MCP server 'single' listed more than 10000 tools (10001 in 1 page)");
    expect(existsSync(join(temp.path, 'out', 'single'))).toBe(false);
  });
});
