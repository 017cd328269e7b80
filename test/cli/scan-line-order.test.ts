import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

// review userZ5, F3: `hldp scan` and POST /v1/scan gave one file's errors out of line order (1, 11, 10), where
// `hldp validate` and `hldp serve`'s start give them in the order of the file's lines.

const home = useServiceHome('warn');

// a missing author (1:1), a misspelt constraint (10:3) and a misspelt author (11:1)
const TYPO = `name: typo
display: Typo
intent: shows its errors in order
method: run
executor: shell
shell: { argv: [echo, hi] }
params_schema: {}
created: 2026-05-31
constraints:
  timout_ms: 10
autor: me
why: a test
`;

const places = (errors: Array<{ file: string; line: number; column: number }>): string[] => errors.map((error) => `${error.file}:${error.line}:${error.column}`);
const IN_ORDER = ['tools/typo/TOOL.hdlp:1:1', 'tools/typo/TOOL.hdlp:10:3', 'tools/typo/TOOL.hdlp:11:1'];

describe('a definition with several errors', () => {
  it('is reported in the order of its lines by hldp scan (plain and --json) and POST /v1/scan, as by hldp validate', async () => {
    const repo = join(home.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, { 'tools/typo/TOOL.hdlp': TYPO });

    const plain = await runCli(['scan', '--repo', repo], { env: home.env });
    expect(plain.stderr.split('\n').filter((line) => line.startsWith('tools/typo/')).map((line) => line.split(': ')[0])).toEqual(IN_ORDER);
    const json = await runCli(['scan', '--repo', repo, '--json'], { env: home.env });
    expect(places(JSON.parse(json.stdout).errors)).toEqual(IN_ORDER);

    const serve = await home.serve(['--repo', repo]);
    const scanned = await fetch(`${serve.url}/v1/scan`, { method: 'POST' });
    expect(places(((await scanned.json()) as { errors: Array<{ file: string; line: number; column: number }> }).errors)).toEqual(IN_ORDER);
  }, 120_000);
});
