import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// what an agent (a tool name it sends) or a tool (its stderr) could write to an operator's terminal: clear the
// screen, set the window title, and a fake line
const HOSTILE_NAME = '\u001b[2J\u001b[H\u001b]0;pwned\u0007 ok shell-exec';
const STEERING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let server: ServiceProcess;
beforeAll(async () => {
  temp = await makeTempDir('hldp-terminal-');
  const repo = join(temp.path, 'repo');
  await writeFiles(repo, {
    // stdout that sets the clipboard (OSC 52) and clears the screen, over two lines and a tab
    'tools/clipper/TOOL.hdlp': makeToolYaml('clipper', { executor: 'shell', method: 'run', shell: String.raw`{ script: "printf 'first\\tline\\n\\033]52;c;cHduZWQ=\\007\\033[2Jsecond line\\n'; printf '\\033[31mred\\n' >&2" }` }),
    'tools/noisy/TOOL.hdlp': makeToolYaml('noisy', { executor: 'shell', method: 'run', shell: String.raw`{ script: "printf '\\033[2J\\033]0;pwned\\007 fake\\n' >&2; exit 1" }` }),
  });
  env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  server = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

describe('the human views of hldp (found in review)', () => {
  describe('when an agent sends a tool name, and a tool writes stderr, holding terminal escapes', () => {
    it('shows them escaped, never raw, in hldp tail, hldp receipts and hldp receipts --rejected', async () => {
      const tail = runCli(['tail', '--url', server.url, '--count', '2', '--types', 'receipt.stored,call.rejected']);
      let done = false;
      void tail.then(() => (done = true));
      // tail subscribes from now on: keep calling until both lines arrive
      for (let tries = 0; tries < 100 && !done; tries += 1) {
        await request(server, 'POST', '/v1/call', { body: { tool: tries % 2 === 0 ? HOSTILE_NAME : 'noisy', params: {} } });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const views = [(await tail).stdout, (await runCli(['receipts', '--failed'], { env })).stdout, (await runCli(['receipts', '--rejected'], { env })).stdout];
      for (const view of views) {
        expect(view).not.toMatch(STEERING);
        expect(view).toContain(String.raw`\x1b[2J`);
        expect(view).toContain(String.raw`\x1b]0;pwned\x07`);
      }
      expect(views[0]).toMatch(/REJECTED \\x1b\[2J\\x1b\[H\\x1b\]0;pwned\\x07 ok shell-exec TOOL_NOT_FOUND/);
      // the JSON view keeps what was sent, escaped by JSON itself
      const json = await runCli(['receipts', '--rejected', '--json'], { env });
      expect(json.stdout).not.toMatch(STEERING);
      expect(JSON.parse(json.stdout).rejections.map((entry: { tool: string }) => entry.tool)).toContain(HOSTILE_NAME);
    });

    // review R, R18: a receipt opened in full replayed the tool's output raw
    it('shows them escaped, its lines and tabs kept, in hldp receipts ID; --json keeps the output as stored', async () => {
      const called = await request(server, 'POST', '/v1/call', { body: { tool: 'clipper', params: {} } });
      expect(called.json).toMatchObject({ ok: true });
      const listed = JSON.parse((await runCli(['receipts', '--tool', 'clipper', '--json'], { env })).stdout) as { receipts: { id: string }[] };
      const id = listed.receipts[0]!.id;
      const shown = (await runCli(['receipts', id], { env })).stdout;
      expect(shown.replace(/\t/g, ' ')).not.toMatch(STEERING);
      expect(shown).toContain('first\tline\n');
      expect(shown).toContain(String.raw`\x1b]52;c;cHduZWQ=\x07\x1b[2Jsecond line`);
      expect(shown).toContain(String.raw`\x1b[31mred`);
      const json = await runCli(['receipts', id, '--json'], { env });
      expect(JSON.parse(json.stdout).output).toBe('first\tline\n\u001b]52;c;cHduZWQ=\u0007\u001b[2Jsecond line\n');
    });
  });
});
