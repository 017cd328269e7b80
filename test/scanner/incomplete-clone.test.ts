import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { startGitHttpFront } from '../helpers/git-http-front.js';
import { runCli } from '../helpers/run-cli.js';
import type { ServedRepository } from '../helpers/served-repository.js';
import { testFolder } from '../helpers/test-folder.js';
import { sideBandAnswer } from '../helpers/upload-pack-server.js';

// Found in review G (F7): one answer that held the advertised commit but not all it points at was written as the
// clone, and the clone was then believed whole — every later scan failed ("Could not find <tree>"), or, after a push,
// a tool was READ_FAILED for the life of the clone ("read again on the next scan", never with success), even with the
// server honest again: a later fetch says `have <that commit>`, so git never sends what is missing.

const execFileAsync = promisify(execFile);

const folder = testFolder('hldp-incomplete-clone-');

/** A pack of exactly these objects (no others they point at), as `git pack-objects` writes it. */
async function packOfObjects(repo: string, oids: string[]): Promise<Buffer> {
  const child = execFile('git', ['pack-objects', '--stdout'], { cwd: repo, encoding: 'buffer', maxBuffer: 1 << 24 }, () => undefined);
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git pack-objects exited ${code}`)))));
  child.stdin!.end(`${oids.join('\n')}\n`);
  await done;
  return Buffer.concat(chunks);
}

async function oidOf(repo: string, spec: string): Promise<string> {
  return (await execFileAsync('git', ['rev-parse', spec], { cwd: repo })).stdout.trim();
}

/** A served repository whose first clone request is answered once with a pack of `objects(work, head)` alone. */
async function servedWithOneBadAnswer(objects: (work: string, head: string) => Promise<string[]>): Promise<{ url: string; push: ServedRepository['push'] }> {
  const served = await folder.serve();
  const head = await served.push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') }, 'one');
  const bad = sideBandAnswer(await packOfObjects(served.work, await objects(served.work, head)));
  let lying = true;
  const front = folder.closeAfter(
    await startGitHttpFront(served.url, {
      intercept: ({ method }) => {
        if (!lying || method !== 'POST') return undefined;
        lying = false;
        return { status: 200, contentType: 'application/x-git-upload-pack-result', body: bad };
      },
    }),
  );
  return { url: front.url, push: served.push };
}

// without HLDP_LOG_LEVEL: a scan that succeeds writes nothing to stderr at the default level either
function scan(url: string) {
  return runCli(['scan', '--repo', url, '--json'], { env: { HLDP_CACHE_DIR: join(folder.path, 'cache'), HLDP_DATA_DIR: join(folder.path, 'data') } });
}

function names(stdout: string): string[] {
  return (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

describe('a clone that one bad answer left incomplete (review G, F7) is started over by the next scan', () => {
  it('after a pack that held the commit alone: that scan fails, the next one against the honest server lists every tool', async () => {
    const { url } = await servedWithOneBadAnswer(async (_work, head) => [head]);
    const first = await scan(url);
    expect(first.code).not.toBe(0);
    expect(first.stderr).toMatch(/Could not find [0-9a-f]{40}/);
    const second = await scan(url);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(names(second.stdout)).toEqual(['alpha']);
  });

  it('after a pack without a definition: that scan reports READ_FAILED, the next one reads the tool, and a later push is fetched on top', async () => {
    const { url, push } = await servedWithOneBadAnswer(async (repo, head) => [head, await oidOf(repo, `${head}^{tree}`), await oidOf(repo, `${head}:tools`), await oidOf(repo, `${head}:tools/alpha`)]);
    const first = await scan(url);
    expect(JSON.parse(first.stdout)).toMatchObject({ tools: [], errors: [expect.objectContaining({ file: 'tools/alpha/TOOL.hdlp', code: 'READ_FAILED' })] });
    const second = await scan(url);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ errors: [] });
    expect(names(second.stdout)).toEqual(['alpha']);
    await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') }, 'two');
    const third = await scan(url);
    expect(third.code).toBe(0);
    expect(names(third.stdout)).toEqual(['alpha', 'beta']);
  });
});
