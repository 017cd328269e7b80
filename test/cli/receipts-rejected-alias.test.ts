// Review userZ11, U11-13 (the CLI's part, left by fixz29): a call refused after its name resolved (invalid params) is
// kept under the tool's name, so `hldp receipts --rejected --tool ALIAS` said "no rejected calls" where
// GET /v1/rejections?tool=ALIAS and the console listed them. A real `hldp serve` of a real repository, refused calls
// over HTTP, and the CLI reading its store.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describe('hldp receipts --rejected --tool, naming the tool by an alias', () => {
  it('lists the calls refused for the tool, as GET /v1/rejections?tool= does, and says the name it looked for', async () => {
    const repo = join(home.path, 'tools');
    await initRepository(repo);
    await commitFiles(repo, {
      'tools/word-count/TOOL.hdlp': makeToolYaml('word-count', { executor: 'shell', method: 'run', params_schema: '{ text: { type: string, required: true } }', shell: '{ argv: [echo, "{text}"] }', aliases: '[wc, 字数统计]' }),
    });
    const server = await home.serve(['--repo', repo]);
    for (const tool of ['wc', '字数统计']) {
      const refused = await request(server, 'POST', '/v1/call', { body: { tool, params: { texte: 'hi' } } });
      expect(refused.status, JSON.stringify(refused.json)).toBe(422);
    }
    const overHttp = await request(server, 'GET', `/v1/rejections?tool=${encodeURIComponent('wc')}`);
    expect((overHttp.json as { rejections: Array<{ tool: string }> }).rejections.map((entry) => entry.tool)).toEqual(['word-count', 'word-count']);
    for (const alias of ['wc', '字数统计', 'WC']) {
      const listed = await runCli(['receipts', '--rejected', '--tool', alias, '--repo', repo], { env: home.env });
      expect(listed.code, listed.stderr).toBe(0);
      const lines = listed.stdout.trimEnd().split('\n');
      expect(lines, alias).toHaveLength(2);
      for (const line of lines) expect(line).toMatch(/ {2}rejected {2}word-count {2}INVALID_PARAMS {2}by /);
      expect(listed.stderr).toBe(`'${alias}' names tool 'word-count' in ${repo}: its rejected calls, kept under that name\n`);
      const json = await runCli(['receipts', '--rejected', '--tool', alias, '--repo', repo, '--json'], { env: home.env });
      expect((JSON.parse(json.stdout) as { rejections: Array<{ tool: string }> }).rejections.map((entry) => entry.tool)).toEqual(['word-count', 'word-count']);
    }
    // a name no tool of the registry read answers to is said to be one, as the receipts list says it
    const none = await runCli(['receipts', '--rejected', '--tool', 'nope', '--repo', repo], { env: home.env });
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^no rejected calls \(tool=nope\) in .*; rejected calls are kept under a tool's name, and 'nope' names no tool of .*: name the tool, or pass the gateway's --config or --repo\n$/);
  }, 120_000);
});
