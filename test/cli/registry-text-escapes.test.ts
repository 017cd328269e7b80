import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService } from '../helpers/spawn-service.js';

// A TOOL.hdlp comes from anyone who can push: what it says reached the terminal of whoever ran hldp list, match,
// validate or scan over it (found in review E1): set the window title, clear the screen, or turn text around.
const STEERING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  temp = await makeTempDir('hldp-registry-escapes-');
  repo = join(temp.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/evil/TOOL.hdlp': makeToolYaml('evil', { display: String.raw`"Evil \e]0;PWNED\a tool"`, intent: String.raw`"list files \e[2J\e[31mFAKE\e[0m \u202eexe.txt"`, executor: 'shell', method: 'run', shell: '{ argv: [echo, hi] }' }),
    // a broken sibling whose unknown field is named with an escape, quoted back by the diagnostic
    'tools/broken/TOOL.hdlp': `${makeToolYaml('broken')}"key\\e[2J": 1\n`,
  }, 'hostile definitions');
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
});
afterAll(() => temp.cleanup());

describe('the human views of a hostile registry (found in review)', () => {
  it.each([
    ['validate', ['validate', '__repo__']],
    ['scan', ['scan', '--repo', '__repo__']],
  ])('hldp %s shows what a definition says escaped, never raw', async (_name, args) => {
    const run = await runCli(args.map((arg) => (arg === '__repo__' ? repo : arg)), { env });
    const shown = `${run.stdout}${run.stderr}`;
    expect(shown).not.toMatch(STEERING);
    expect(shown).toContain(String.raw`\x1b[2J`);
  });

  it('hldp serve names the definitions it drops escaped, never raw', async () => {
    const server = await spawnService(['serve', '--repo', repo, '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
    try {
      expect(server.stderr()).toContain('dropped');
      expect(server.stderr()).not.toMatch(STEERING);
      expect(server.stderr()).toContain(String.raw`\x1b[2J`);
    } finally {
      await server.stop();
    }
  });

  // review userX, X10: text a person does not see is refused in a definition (INVISIBLE_TEXT), so the tool is never
  // offered; what is said of it is escaped in the terminal and exact in --json
  it('hldp match never offers a definition that hides text, and shows nothing raw', async () => {
    const run = await runCli(['match', 'list files', '--repo', repo, '--json'], { env });
    const answer = JSON.parse(run.stdout) as { candidates?: Array<{ name: string }>; near?: Array<{ name: string }> };
    expect([...(answer.candidates ?? []), ...(answer.near ?? [])].map((tool) => tool.name)).not.toContain('evil');
    const shown = await runCli(['match', 'list files', '--repo', repo], { env });
    expect(`${shown.stdout}${shown.stderr}`).not.toMatch(STEERING);
  });

  it('keeps --json exact', async () => {
    const run = await runCli(['validate', repo, '--json'], { env });
    const errors = (JSON.parse(run.stdout) as { errors: Array<{ file: string; line: number; code: string; message: string }> }).errors;
    expect(errors.filter((error) => error.file.endsWith('tools/evil/TOOL.hdlp')).map(({ line, code }) => [line, code])).toEqual([[2, 'INVISIBLE_TEXT'], [3, 'INVISIBLE_TEXT']]);
    expect(errors.some((error) => error.message.includes("unknown field 'key\u001b[2J'"))).toBe(true);
  });
});
