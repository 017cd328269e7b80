// Names resolve with ё as е and in any letter case (fixu27c, review userZ10, U10-10), but the scan's alias-conflict
// check compared aliases lower-cased only: 'подсчёт слов' of one tool and 'Подсчет слов' of another were both served,
// and a call of 'подсчет слов' ran the second while 'ПОДСЧЁТ СЛОВ' ran the first. Two aliases that fold alike (ё/е,
// letter case, white space, NFKC, as the resolver folds a call's name) are now one claim: the first by path keeps it,
// the other is told ALIAS_CONFLICT at its alias, by hldp scan, by hldp validate, and a call of any spelling runs the same tool.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

const tool = (name: string, aliases: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }`, aliases });

const conflicts = (output: string): string[] => output.split('\n').filter((line) => line.includes("alias '"));

describe('two tools whose aliases differ only by ё/е, letter case or white space', () => {
  it('are one claim: the second is told ALIAS_CONFLICT at its alias, and every spelling calls the first', { timeout: 120_000 }, async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, {
      'tools/count-a/TOOL.hdlp': tool('count-a', '[подсчёт слов, Ёлка, word count]'),
      'tools/count-b/TOOL.hdlp': tool('count-b', '\n  - Подсчет слов\n  - елка\n  - Word  Count\n  - count-b-own'),
    });
    const expected = [
      "tools/count-b/TOOL.hdlp:12:5: warning: alias 'Подсчет слов' also names tool 'count-a'; it is ignored for 'count-b'",
      "tools/count-b/TOOL.hdlp:13:5: warning: alias 'елка' also names tool 'count-a'; it is ignored for 'count-b'",
      "tools/count-b/TOOL.hdlp:14:5: warning: alias 'Word  Count' also names tool 'count-a'; it is ignored for 'count-b'",
    ];
    const scanned = await runCli(['scan', '--repo', repo], { env: home.env });
    expect(conflicts(scanned.stderr), scanned.stderr).toEqual(expected);
    const validated = await runCli(['validate', repo], { env: home.env, cwd: repo });
    expect(conflicts(validated.stdout + validated.stderr), validated.stdout + validated.stderr).toEqual(expected);
    // the second's spellings: before, 'подсчет слов' and 'елка' ran count-b, and 'word count' neither (a key two held)
    for (const name of ['подсчет слов', 'елка', 'word count']) {
      const called = await runCli(['call', name, '--repo', repo], { env: home.env });
      expect([called.code, called.stdout], `${name}: ${called.stderr}`).toEqual([0, 'count-a\n']);
    }
    // the alias no other tool folds to is still the second's
    const own = await runCli(['call', 'count-b-own', '--repo', repo], { env: home.env });
    expect([own.code, own.stdout], own.stderr).toEqual([0, 'count-b\n']);
  });
});
