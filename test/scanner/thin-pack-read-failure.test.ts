import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// Review I, S2: a fetch's thin pack sends deltas on objects the clone holds. When the clone cannot give such a base
// (missing, broken, too large) the clone is started over (thin-pack-start-over.test.ts). But every failure to read it
// was taken for that: a moment out of file descriptors (EMFILE) threw the clone away and downloaded the whole
// repository again. A real `hldp scan` whose first open of a pack file for reading fails with EMFILE (a preload),
// against `git http-backend`.

const folder = testFolder('hldp-thin-read-failure-');

/** A module preloaded into `hldp`: its first read-open of a `.pack` file fails with EMFILE, and `marker` says it did. */
async function emfileOnce(marker: string): Promise<string> {
  const path = join(folder.path, 'emfile-once.mjs');
  await writeFile(
    path,
    `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const open = fs.promises.open;
let armed = true;
fs.promises.open = function (path, flags, ...rest) {
  if (armed && String(path).endsWith('.pack') && (flags === undefined || flags === 'r')) {
    armed = false;
    fs.writeFileSync(${JSON.stringify(marker)}, String(path));
    return Promise.reject(Object.assign(new Error(\`EMFILE: too many open files, open '\${path}'\`), { code: 'EMFILE', errno: -24, syscall: 'open', path: String(path) }));
  }
  return open.call(this, path, flags, ...rest);
};
syncBuiltinESMExports();
`,
  );
  return pathToFileURL(path).href;
}

async function packsOfClone(): Promise<string[]> {
  for (const entry of await readdir(folder.cacheDir, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() && entry.name === 'pack') return (await readdir(join(entry.parentPath, entry.name))).filter((name) => name.endsWith('.pack')).sort();
  }
  throw new Error('no clone under the cache');
}

/** A definition long enough that a small change of it is sent as a delta on the old one. */
const described = (why: string) => makeToolYaml('alpha', { why: `${why} ${'a reason long enough for git to send a change of it as a delta '.repeat(20)}` });

describe('a fetch whose thin pack needs a base the clone holds, when reading it fails for a moment (EMFILE)', () => {
  it('fails that fetch, keeps the clone, and fetches on top of it at the next scan: no fresh clone', async () => {
    const { url, push } = await folder.serve();
    await push({ 'tools/alpha/TOOL.hdlp': described('first') });
    const first = await folder.scan(url);
    expect(first.code, first.stderr).toBe(0);
    const cloned = await packsOfClone();
    const head = await push({ 'tools/alpha/TOOL.hdlp': described('second') });
    const marker = join(folder.path, 'emfile-hit');
    const second = await folder.scan(url, { env: { NODE_OPTIONS: `--import ${await emfileOnce(marker)}` } });
    // the failure came where the thin pack's base was read
    expect(existsSync(marker)).toBe(true);
    // main: exit 0 after a fresh clone (its one new pack in place of the old)
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^hldp scan: cannot fetch http:\/\/127\.0\.0\.1:\d+\/tools\.git: EMFILE: too many open files, open '.*\.pack'\n$/);
    expect(await packsOfClone()).toEqual(cloned);
    const third = await folder.scan(url);
    expect(third.code, third.stderr).toBe(0);
    expect((JSON.parse(third.stdout) as { commit: string }).commit).toBe(head);
    const packs = await packsOfClone();
    expect(packs).toHaveLength(2);
    expect(packs).toEqual(expect.arrayContaining(cloned));
  }, 120_000);
});
