// Issue #18: `hldp serve` restarted onto a commit newer than its scan cache's patched the cached scan, but its search
// index was kept per commit, so matching-ready built it again from every definition (~35 s of CPU at 100,000 tools).
// It now reads the index kept for the older commit and updates it with the tools changed. Real processes over a real
// repository: the restarted server's answers are a fresh server's, and it made few of the definitions it serves.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { SERVE_ANNOUNCE, useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { ENTRIES_PARSED_COUNTER } from '../helpers/warm-cache.js';
import { changesWhileDown, TOPIC_INTENTS, topicToolDefinition as definition, topicToolFiles, topicToolName as nameOf } from '../helpers/topic-tools.js';

const TOOLS = 1_500;


const home = useServiceHome('warn');

// each intent's answer, once matching is ready (a match waits for it)
async function answers(server: ServiceProcess): Promise<unknown[]> {
  const answered: unknown[] = [];
  for (const intent of TOPIC_INTENTS) {
    const response = await request(server, 'POST', '/v1/match', { body: { intent, limit: 3 }, headers: { prefer: 'wait=120' } });
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    answered.push(response.json);
  }
  return answered;
}

describe('hldp serve restarted onto a commit its scan cache does not hold', () => {
  it('answers as a fresh server, its search index updated from the older commit\'s rather than built from every definition', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    const files = topicToolFiles(TOOLS);
    await commitFiles(repo, files);
    const first = await home.serve(['--repo', repo]);
    await answers(first);
    await first.stop();

    // the repository moves on while no server runs
    await commitFiles(repo, changesWhileDown(), 'while down');
    const counter = join(home.path, 'count-parsed.cjs');
    await writeFile(counter, ENTRIES_PARSED_COUNTER);
    const parsedFile = join(home.path, 'parsed');
    const restarted = await home.start(['serve', '--repo', repo, '--port', '0'], { NODE_OPTIONS: `--require ${counter}`, HLDP_TEST_PARSED_FILE: parsedFile }, SERVE_ANNOUNCE);
    const afterRestart = await answers(restarted);
    expect(await restarted.stop()).toBe(0);
    const parsed = Number(await readFile(parsedFile, 'utf8'));

    const fresh = await home.serve(['--repo', repo], { HLDP_CACHE_DIR: join(home.path, 'fresh-cache') });
    expect(afterRestart).toEqual(await answers(fresh));
    expect((afterRestart[5] as { candidates: Array<{ name: string }> }).candidates[0]!.name).toBe('added');
    // the changed entries, the calibration's sample (at most 192) and the warm-up's requests (at most 512): 702 when
    // measured; on main 3,034, every definition made to build the index and again to count the calibration's texts
    expect(parsed).toBeLessThan(TOOLS);
  }, 300_000);
});

describe('hldp serve restarted after it rescanned', () => {
  it('prepares matching from what it kept at its stop without making every definition', async () => {
    // a registry with a Chinese example: the server reads the dictionary, and its rescan's matcher then kept no word of
    // whether the tools have Chinese probes, which a restart read from every definition (what the calibration read of
    // each tool, kept with the index since layout 6, says)
    const repo = await initRepository(join(home.path, 'repo'));
    const files = topicToolFiles(TOOLS);
    files[`tools/${nameOf(0)}/TOOL.hdlp`] = makeToolYaml(nameOf(0), { intent: 'check the weather of team 0', examples: '["查看天气", "open the weather list"]' });
    await commitFiles(repo, files);
    const first = await home.serve(['--repo', repo]);
    await answers(first);
    await commitFiles(repo, { [`tools/${nameOf(7)}/TOOL.hdlp`]: definition(7, 'sort the parcels of the harbour') }, 'while serving');
    expect((await request(first, 'POST', '/v1/scan')).json).toMatchObject({ changed: true });
    const beforeStop = await answers(first);
    expect(await first.stop()).toBe(0);

    const counter = join(home.path, 'count-parsed.cjs');
    await writeFile(counter, ENTRIES_PARSED_COUNTER);
    const parsedFile = join(home.path, 'parsed');
    const restarted = await home.start(['serve', '--repo', repo, '--port', '0'], { NODE_OPTIONS: `--require ${counter}`, HLDP_TEST_PARSED_FILE: parsedFile }, SERVE_ANNOUNCE);
    expect(await answers(restarted)).toEqual(beforeStop);
    expect(await restarted.stop()).toBe(0);
    // the warm-up's requests (at most 512): on ed35918 every one of the 1,500 too
    expect(Number(await readFile(parsedFile, 'utf8'))).toBeLessThan(TOOLS);
  }, 300_000);
});
