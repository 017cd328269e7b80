import { describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder();
const TOKEN = 'the-right-token-7f3a';

// review userZ, Z5: a token given and refused was told "set a token", the same words as with none
describe('hldp scan of a remote over smart HTTP that answers 401', () => {
  it('says to set a token when none was given, and that the given one was refused when one was, never showing it', async () => {
    const served = await folder.serve({ token: TOKEN });
    await served.push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const env = { HLDP_CACHE_DIR: folder.cacheDir };
    const none = await runCli(['scan', '--repo', served.url], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('HTTP 401; set a token with read access');
    const wrong = await runCli(['scan', '--repo', served.url, '--token', 'a-wrong-token-0000'], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('HTTP 401; the token given was refused: check it, or set another (--token, HLDP_REPO_TOKEN or repository.token in the config)');
    expect(wrong.stderr).not.toContain('a-wrong-token-0000');
    expect((await runCli(['scan', '--repo', served.url, '--token', TOKEN], { env })).code).toBe(0);
  });
});
