import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { writeRefDeltaPack } from '../helpers/crafted-pack.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// A repository on disk is whatever its writer put there: a pack whose ref-deltas are each other's bases has no
// object at the end of the chain. Reading one once never came back and held the event loop (every step a
// microtask), so a scan hung and a server stopped answering. It is that file's READ_FAILED now.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

const A = 'a1'.repeat(20);
const B = 'b2'.repeat(20);

describe('ObjectReader over ref-deltas that are each other’s bases', () => {
  it.each([
    ['two deltas on each other', { [A]: B, [B]: A }],
    ['a delta on itself', { [A]: A }],
  ])('fails the read with a corrupt-pack error (%s)', async (_, bases) => {
    const gitdir = join(temp.path, 'git');
    await writeRefDeltaPack(gitdir, bases);
    const packs = new PackStore(gitdir);
    await packs.list();
    await expect(new ObjectReader(gitdir, packs, () => false).read(A)).rejects.toThrow(/delta chain longer than/);
  });
});

describe('hldp scan of a repository whose tool blob is a ref-delta cycle', () => {
  it('reports READ_FAILED for that file, lists the other tools, and exits', async () => {
    const root = await initRepository(join(temp.path, 'repo'));
    await commitFiles(root, { 'tools/good/TOOL.hdlp': makeToolYaml('good'), 'tools/looped/TOOL.hdlp': makeToolYaml('looped') });
    const blob = await git(root, 'rev-parse', 'HEAD:tools/looped/TOOL.hdlp');
    // the loose blob goes; a pack holds it as a delta on another delta whose base is the blob again
    await rm(join(root, '.git', 'objects', blob.slice(0, 2), blob.slice(2)), { force: true });
    await writeRefDeltaPack(join(root, '.git'), { [blob]: B, [B]: blob });
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
    const run = await runCli(['scan', '--repo', root, '--json'], { env, timeoutMs: 30_000 });
    expect(run.stderr).not.toMatch(/runCli: killed/);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.tools.map((tool: { name: string }) => tool.name)).toEqual(['good']);
    expect(result.errors).toEqual([expect.objectContaining({ file: 'tools/looped/TOOL.hdlp', code: 'READ_FAILED', message: expect.stringMatching(/delta chain/) })]);
  });
});
