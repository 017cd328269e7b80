// Issue #18: before `hldp serve` says intent matching is ready, it asks its matcher requests made of the registry's own
// words, so that the first agents' requests do not wait for the code they run to be compiled. Nothing of that may be
// seen: no match counted, and every answer as a process that never warmed up gives it (`hldp match`).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const NATIVE_TOOLS = fileURLToPath(new URL('../../native-repo/tools', import.meta.url));
// Chinese, Russian, a value, a path, a code, and one nothing matches
const INTENTS = ['查看最近的提交记录', 'открой файл и покажи содержимое', "show me the last 5 commits of 'main'", 'read README.md', 'xyzzy plugh'];

const home = useServiceHome('warn');

describe('hldp serve once intent matching is ready', () => {
  it('has counted no match of its own, and answers every request as hldp match does', async () => {
    // the starter tools, whose Chinese examples make the server read the dictionary, and its warm-up ask Chinese requests
    const repo = await initRepository(join(home.path, 'repo'));
    const files: Record<string, string> = {};
    for (const tool of await readdir(NATIVE_TOOLS)) files[`tools/${tool}/TOOL.hdlp`] = await readFile(join(NATIVE_TOOLS, tool, 'TOOL.hdlp'), 'utf8');
    await commitFiles(repo, files);
    const server = await home.serve(['--repo', repo]);
    while ((await request(server, 'GET', '/healthz')).json.matching !== 'ready') await new Promise((resolve) => setTimeout(resolve, 50));

    const before = await request(server, 'GET', '/metrics');
    expect(before.text).toMatch(/^hldp_match_duration_seconds_count 0$/m);
    for (const intent of INTENTS) {
      const served = await request(server, 'POST', '/v1/match', { body: { intent } });
      expect(served.status).toBe(200);
      const cli = await runCli(['match', '--repo', repo, '--json', intent], { env: home.env, timeoutMs: 60_000 });
      expect(served.json).toEqual(JSON.parse(cli.stdout));
    }
    // only the requests asked here are counted
    const after = await request(server, 'GET', '/metrics');
    expect(after.text).toMatch(new RegExp(`^hldp_match_duration_seconds_count ${INTENTS.length}$`, 'm'));
  }, 180_000);
});
