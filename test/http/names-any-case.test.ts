// Review userZ10, U10-10: `{"tool":"WC"}` ran word-count by its alias while `{"tool":"Word-Count"}` was 404, and
// `подсчет слов` (е for ё, as Russian is mostly typed) missed the alias `подсчёт слов`; U10-20: a call by alias is
// stored under the tool's name, so `GET /v1/receipts?tool=ALIAS` and `hldp receipts --tool ALIAS` found nothing.
// A real `hldp serve` of a real repository, and the CLI reading its store.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describe('a tool called by its name in another letter case, or by an alias written with е for ё', () => {
  it('runs it, and its receipts are found by any name a call finds it by, over HTTP and with hldp receipts', async () => {
    const repo = join(home.path, 'tools');
    await initRepository(repo);
    await commitFiles(repo, { 'tools/word-count/TOOL.hdlp': makeToolYaml('word-count', { executor: 'shell', method: 'run', shell: '{ argv: [echo, counted] }', aliases: '[wc, подсчёт слов, 字数统计]' }) });
    const server = await home.serve(['--repo', repo]);
    for (const tool of ['Word-Count', 'ПОДСЧЕТ СЛОВ', '字数统计']) {
      const called = await request(server, 'POST', '/v1/call', { body: { tool, params: {} } });
      expect(called.status, `${tool}: ${JSON.stringify(called.json)}`).toBe(200);
      expect(called.json).toMatchObject({ tool: 'word-count', ok: true, output: 'counted\n' });
    }
    // a name no tool answers to in any folding is still unknown, with the near name
    const unknown = await request(server, 'POST', '/v1/call', { body: { tool: 'Word-Counts', params: {} } });
    expect(unknown.status).toBe(404);
    for (const tool of ['字数统计', 'подсчет слов', 'WORD-COUNT']) {
      const listed = await request(server, 'GET', `/v1/receipts?tool=${encodeURIComponent(tool)}`);
      expect((listed.json as { receipts: Array<{ tool: string }> }).receipts.map((receipt) => receipt.tool), tool).toEqual(['word-count', 'word-count', 'word-count']);
    }
    const byAlias = await runCli(['receipts', '--tool', '字数统计', '--repo', repo], { env: home.env });
    expect(byAlias.code, byAlias.stderr).toBe(0);
    expect(byAlias.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(byAlias.stderr).toContain(`'字数统计' names tool 'word-count' in ${repo}: its receipts, kept under that name`);
    // the CLI reading another registry (the starter tools) says what it could not resolve, and how to point it
    const elsewhere = await runCli(['receipts', '--tool', '字数统计'], { env: { ...home.env, HLDP_REPO: '', HLDP_CONFIG: '' } });
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toMatch(/^no receipts \(tool=字数统计\) in .*; receipts are kept under a tool's name, and '字数统计' names no tool of .*: name the tool, or pass the gateway's --config or --repo\n$/);
  }, 120_000);
});
