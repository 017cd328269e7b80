import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eachTool, findTool, toolsOf } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, git, makeToolYaml } from '../helpers/git.js';
import type { GitHttpServer } from '../helpers/git-http-server.js';
import type { ServeOptions } from '../helpers/served-repository.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder();
let server: GitHttpServer;
let work: string;
let push: (files: Record<string, string | null>) => Promise<string>;

/** A bare repository `tools.git` served over smart HTTP, and a clone to push from (`work`, `push`); its URL. */
async function serve(options: ServeOptions = {}): Promise<string> {
  const served = await folder.serve(options);
  ({ server, work, push } = served);
  return served.url;
}

describe('Scanner on a remote over smart HTTP (git http-backend)', () => {
  it('clones, then sees a pushed tool, a deleted tool and a broken tool on each rescan', async () => {
    const url = await serve();
    const first = await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    const initial = await scanner.scan();
    expect(initial.commit).toBe(first);
    expect(initial.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);

    const second = await push({ 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') });
    const added = await scanner.scan();
    expect(added.commit).toBe(second);
    expect(added.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta', 'gamma']);

    await push({ 'tools/beta/TOOL.hdlp': null });
    const deleted = await scanner.scan();
    expect(deleted.tools.map((tool) => tool.name)).toEqual(['alpha', 'gamma']);

    await push({ 'tools/alpha/TOOL.hdlp': 'name: alpha\ndisplay: [broken\n' });
    const broken = await scanner.scan();
    expect(broken.tools.map((tool) => tool.name)).toEqual(['gamma']);
    expect(broken.errors).toEqual([expect.objectContaining({ file: 'tools/alpha/TOOL.hdlp', code: 'YAML_SYNTAX', line: 3 })]);
    expect(broken.tools[0]).toBe(deleted.tools[1]);
  });

  it('answers an unchanged remote without fetching, and a restart without parsing', async () => {
    const url = await serve();
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const first = await scanOnce(url, { cacheDir: folder.cacheDir });
    const packsBefore = await findFiles(folder.cacheDir, (name) => name.endsWith('.pack'));
    const requestsBefore = server.requests();
    const again = await scanOnce(url, { cacheDir: folder.cacheDir });
    expect(again.scanned_at).toBe(first.scanned_at);
    // only the ref listing (protocol v1: one GET of info/refs), and no new pack fetched
    expect(server.requests() - requestsBefore).toBe(1);
    expect(await findFiles(folder.cacheDir, (name) => name.endsWith('.pack'))).toEqual(packsBefore);
  });

  it('rescans after a push in two requests: the fetch reuses the head check\'s ref listing', async () => {
    const url = await serve();
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    await scanner.scan();
    const second = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    const requestsBefore = server.requests();
    const rescanned = await scanner.scan();
    expect(rescanned).toMatchObject({ commit: second, tools: [{ name: 'alpha' }, { name: 'beta' }] });
    // GET info/refs once, then POST git-upload-pack
    expect(server.requests() - requestsBefore).toBe(2);
    // the cache write goes on after scan() answers: the temporary folder is removed only once it is done
    await scanner.flush();
  });

  it('fetches a one-file commit as a thin pack: a few hundred bytes, not the whole new tools/ tree', async () => {
    const url = await serve();
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`tools/tool-${i}/TOOL.hdlp`] = makeToolYaml(`tool-${i}`);
    await push(files);
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    await scanner.scan();
    // 400 entries of `40000 tool-N\0` and a 20-byte id: the tree a non-thin fetch resends whole
    const treeBytes = Number(await git(work, 'cat-file', '-s', 'HEAD:tools'));
    expect(treeBytes).toBeGreaterThan(10_000);
    const second = await push({ 'tools/tool-7/TOOL.hdlp': makeToolYaml('tool-7', { intent: 'does other things' }) });
    const sentBefore = server.uploadPackBytes();
    const rescanned = await scanner.scan();
    expect(rescanned.commit).toBe(second);
    expect(rescanned.tools.find((tool) => tool.name === 'tool-7')?.intent).toBe('does other things');
    expect(server.uploadPackBytes() - sentBefore).toBeLessThan(2_000);
    await scanner.flush();
  });

  describe('when a push lands between the head check and the fetch', () => {
    it('reads the refs again and fetches the new head when the server no longer offers the one it listed', async () => {
      let racing: (() => Promise<void>) | undefined;
      const url = await serve({
        beforeServing: async (method, path) => {
          const race = racing;
          if (method !== 'POST' || !path.endsWith('/git-upload-pack') || !race) return;
          racing = undefined;
          await race();
        },
      });
      await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
      await scanner.scan();
      await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      let replaced = '';
      // after the head check listed beta's commit, it is forced away: the server refuses it as "not our ref"
      racing = async () => {
        await git(work, 'reset', '-q', '--hard', 'HEAD~1');
        replaced = await commitFiles(work, { 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') });
        await git(work, 'push', '-q', '--force', 'origin', 'main');
      };
      const rescanned = await scanner.scan();
      expect(replaced).not.toBe('');
      expect(rescanned.commit).toBe(replaced);
      expect(rescanned.tools.map((tool) => tool.name)).toEqual(['alpha', 'gamma']);
      await scanner.flush();
    });
  });

  describe('when the remote becomes unreachable', () => {
    it('keeps serving the last fetched index, marked stale with the reason', async () => {
      const url = await serve();
      await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
      await scanner.scan();
      await server.close();
      const stale = await scanner.scan();
      expect(stale.tools.map((tool) => tool.name)).toEqual(['alpha']);
      expect(stale.stale?.reason).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/tools\.git/);

      const restarted = await scanOnce(url, { cacheDir: folder.cacheDir });
      expect(restarted.stale).toBeDefined();
      expect(restarted.tools.map((tool) => tool.name)).toEqual(['alpha']);
    });

    it('says since when it is stale: the first failed poll, not the last, and serves the same index while nothing changes (review I F4)', async () => {
      const url = await serve();
      await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
      await scanner.scan();
      await server.close();
      const first = await scanner.scan();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = await scanner.scan();
      expect(first.stale?.since).toBeDefined();
      expect(second.stale?.since).toBe(first.stale?.since);
      // a new copy at every poll would make a server rebuild what it keeps per index (the prompt block's lines)
      expect(second).toBe(first);
    });

    it('serves the last index as it was read, making no definition for the mark (issue #18: a spread made and kept them all)', async () => {
      const url = await serve();
      await push(Object.fromEntries(['alpha', 'beta', 'gamma'].map((name) => [`tools/${name}/TOOL.hdlp`, makeToolYaml(name, { aliases: `[${name}-alias]` })])));
      const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
      const served = await scanner.scan();
      const beta = findTool(served, 'beta');
      expect(Array.isArray(toolsOf(served))).toBe(false);
      await server.close();
      const stale = await scanner.scan();
      expect(stale.stale?.reason).toMatch(/cannot reach/);
      // the index's tools are still made one at a time, when asked for: the very ones it made before
      expect(Array.isArray(toolsOf(stale))).toBe(false);
      expect(findTool(stale, 'beta')).toBe(beta);
      expect([...eachTool(stale)].map((tool) => tool.aliases)).toEqual([['alpha-alias'], ['beta-alias'], ['gamma-alias']]);
      // polled again while out of reach
      const again = await scanner.scan();
      expect(findTool(again, 'beta')).toBe(beta);
      expect(Array.isArray(toolsOf(again))).toBe(false);
      expect(Array.isArray(toolsOf(stale))).toBe(false);
      expect(Array.isArray(toolsOf(served))).toBe(false);
      expect(JSON.parse(JSON.stringify(stale))).toEqual({ ...JSON.parse(JSON.stringify(served)), stale: stale.stale });
    });

    it('fails clearly when nothing was ever fetched', async () => {
      const url = await serve();
      await server.close();
      await expect(scanOnce(url, { cacheDir: folder.cacheDir })).rejects.toMatchObject({ code: 'SOURCE_UNREACHABLE', message: expect.stringContaining('cannot read') });
    });
  });

  describe('when the remote needs a token', () => {
    it('refuses without one and reads with one, never storing it in the clone or the label', async () => {
      const url = await serve({ token: 's3cret-token' });
      await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      await expect(scanOnce(url, { cacheDir: folder.cacheDir })).rejects.toMatchObject({ code: 'AUTHENTICATION_FAILED' });
      const index = await scanOnce(url, { cacheDir: folder.cacheDir, token: 's3cret-token' });
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha']);
      expect(index.source).not.toContain('s3cret');
      const configs = await findFiles(folder.cacheDir, (name) => name === 'config');
      expect(configs.length).toBeGreaterThan(0);
      for (const config of configs) expect(await readFile(config, 'utf8')).not.toContain('s3cret');
    });

    it('warns when the token would cross the network unencrypted, and not on loopback or https', async () => {
      const warnings: string[] = [];
      const listen = (warning: Error & { code?: string }): void => {
        if (warning.code === 'HLDP_CLEARTEXT_TOKEN') warnings.push(warning.message);
      };
      process.on('warning', listen);
      try {
        for (const url of ['http://forgejo.example/a/tools.git', 'http://127.0.0.1:3000/a/tools.git', 'https://forgejo.example/a/tools.git']) {
          new Scanner({ repo: url, cacheDir: folder.cacheDir, token: 's3cret-token' });
        }
        // process warnings are emitted on a later tick
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off('warning', listen);
      }
      expect(warnings).toEqual(['the repository token is sent unencrypted to forgejo.example (an http:// URL); use https:// beyond this machine']);
    });
  });

  it('refuses a SHA-256 remote clearly', async () => {
    const url = await serve({ objectFormat: 'sha256' });
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    await expect(scanOnce(url, { cacheDir: folder.cacheDir })).rejects.toMatchObject({ code: 'UNSUPPORTED_OBJECT_FORMAT' });
  });
});

async function findFiles(root: string, wanted: (name: string) => boolean): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && wanted(entry.name)) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

// The tests' push() writes straight into the bare repository; an author pushes through the server. A git push over
// smart HTTP (git-receive-pack through git http-backend, with the token Forgejo asks for) and then hldp scan, as a user runs them.
describe('hldp scan of a registry its authors push to over smart HTTP', () => {
  it('clones what the first push brought, and a rescan finds the TOOL.hdlp the next push added', async () => {
    const received: string[] = [];
    const served = await folder.serve({
      token: 's3cret-token',
      beforeServing: async (method, path) => {
        if (path.endsWith('/git-receive-pack')) received.push(`${method} ${path}`);
      },
    });
    const env = { HLDP_REPO_TOKEN: 's3cret-token' };
    const scanned = async (): Promise<{ commit: string; tools: string[] }> => {
      const run = await folder.scan(served.url, { env });
      expect(run.code, run.stderr).toBe(0);
      const index = JSON.parse(run.stdout) as { commit: string; tools: Array<{ name: string }> };
      return { commit: index.commit, tools: index.tools.map((tool) => tool.name) };
    };
    const first = await served.pushOverHttp({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    expect(await scanned()).toEqual({ commit: first, tools: ['alpha'] });
    const second = await served.pushOverHttp({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    expect(await scanned()).toEqual({ commit: second, tools: ['alpha', 'beta'] });
    expect(received).toEqual(['POST /tools.git/git-receive-pack', 'POST /tools.git/git-receive-pack']);
  });
});

describe('Scanner fetching from a remote that moves on', () => {
  it('asks only for what is new since the last fetch, not since the clone', async () => {
    const url = await serve();
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`tools/tool-${i}/TOOL.hdlp`] = makeToolYaml(`tool-${i}`, { why: `padding ${'x'.repeat(200)}` });
    await push(files);
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    await scanner.scan();
    const packSizes = async () => {
      const packs = await findFiles(folder.cacheDir, (name) => name.endsWith('.pack'));
      const { stat } = await import('node:fs/promises');
      return Promise.all(packs.map(async (pack) => (await stat(pack)).size));
    };
    const [clonePack] = await packSizes();
    for (let round = 0; round < 3; round++) {
      // 4 KiB of incompressible text a round: a fetch that resent earlier rounds would show it in its size (in `why`:
      // an intent is at most 1,000 characters, review Z8, Z8-2)
      const noise = randomBytes(2048).toString('hex');
      await push({ 'tools/tool-0/TOOL.hdlp': makeToolYaml('tool-0', { why: `round ${round} ${noise}` }) });
      const index = await scanner.scan();
      expect(index.tools.find((tool) => tool.name === 'tool-0')?.why).toBe(`round ${round} ${noise}`);
    }
    const sizes = await packSizes();
    expect(sizes).toHaveLength(4);
    // each fetched pack holds one commit's new objects: far smaller than the clone, and not growing round by round
    const fetched = sizes.filter((size) => size !== clonePack);
    for (const size of fetched) expect(size).toBeLessThan(clonePack! / 2);
    expect(Math.max(...fetched) - Math.min(...fetched)).toBeLessThan(2048);
    await scanner.flush();
  });
});
