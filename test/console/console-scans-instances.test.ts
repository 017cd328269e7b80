// Review userZ6, F5. Two instances on one store each scan a push and each log it: the console's Registry → Scans
// listed every scan twice, identical rows with no instance named, and its Broken column counted errors (8) beside
// "Broken definitions 1 — 1 definition failed to load". Each row now names the instance that scanned (the start of
// its id) and counts the errors with the files they are in. Review userZ10, U10-17: the "Broken definitions" heading
// counted errors too; it counts files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { commitFiles } from '../helpers/git.js';
import { api, deployOnOneStore, TOKENS } from '../policy/support.js';

// one definition, several errors: an unknown executor, no intent, no why, no author
const BROKEN = ['name: broken-one', 'display: broken-one', 'method: run', 'executor: nope'].join('\n');

describe('the console\'s scan history over two instances on one store (review userZ6 F5)', () => {
  let deployment: { a: string; b: string; repo: string; stop(): Promise<void> };
  beforeAll(async () => {
    deployment = await deployOnOneStore('sqlite', {}, async (on) => {
      const a = (await on.start('a')).url;
      const b = (await on.start('b')).url;
      return { a, b, repo: on.repo };
    });
  }, 300_000);
  afterAll(async () => deployment?.stop(), 60_000);

  it('names the instance of each scan and counts errors with their files', { timeout: 240_000 }, async () => {
    const { a, b, repo } = deployment;
    await commitFiles(repo, { 'tools/broken-one/TOOL.hdlp': BROKEN }, 'a broken tool');
    for (const url of [a, b]) expect((await api(url, 'POST', '/v1/scan', { who: 'admin' })).status).toBe(200);
    const cookie = await signInToConsole(a, TOKENS.admin);
    let page = '';
    for (const end = Date.now() + 60_000; Date.now() < end; ) {
      page = await (await fetch(`${a}/console/registry`, { headers: { cookie } })).text();
      if ((page.match(/<td>new commit<\/td>/g) ?? []).length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(page).toContain('<th>Instance</th>');
    expect(page).toContain('<th>Errors</th>');
    const rows = Array.from(page.matchAll(/<tr><td>[^<]*(?:<[^>]+>[^<]*<\/[^>]+>)?[^<]*<\/td><td>([0-9a-f]{8})<\/td><td>new commit<\/td><td><code>[0-9a-f]{12}<\/code><\/td><td>\d+<\/td><td>(\d+) in 1 file<\/td><\/tr>/g));
    expect(rows.length, page.slice(page.indexOf('<h2>Scans'), page.indexOf('<h2>Scans') + 2000)).toBe(2);
    expect(rows[0]![1]).not.toBe(rows[1]![1]);
    expect(Number(rows[0]![2])).toBeGreaterThan(1);
    // the heading counts definitions, its errors beside it: it said "Broken definitions 4" for one file (review userZ10, U10-17)
    expect(page).toContain(`<h2>Broken definitions <span class="count">1</span> <span class="muted">(${rows[0]![2]} errors)</span></h2>`);
  });
});
