import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { git, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// A `tools/` tree's entries were gathered with `push(...entries)`, one argument an entry: past ~120,000 of them V8
// threw "Maximum call stack size exceeded" and every scan of that commit failed. Git stores a folder tree once however
// many entries name it, so one push of ~0.4 MB made such a tree (review G, F8).

const ENTRIES = 200_000;

const folder = testFolder();

/** Real `git` reading `input` on its standard input. */
function gitWithInput(cwd: string, input: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    // a command that reads no input (commit-tree -m) may exit before it is written: its exit code is what counts
    child.stdin.on('error', () => {});
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args.join(' ')} exited ${code}`))));
    child.stdin.end(input);
  });
}

describe(`a tools/ tree of ${ENTRIES} entries naming one empty folder tree (real git http-backend)`, () => {
  it('hldp scan lists every entry: the scan succeeds', async () => {
    const { url, bare } = await folder.serve();
    const blob = await gitWithInput(bare, makeToolYaml('alpha'), 'hash-object', '-w', '--stdin');
    const alphaTree = await gitWithInput(bare, `100644 blob ${blob}\tTOOL.hdlp\n`, 'mktree');
    // every other entry names an empty folder: listed, then found to hold no definition (cheap to read, as it is to push)
    const empty = await gitWithInput(bare, '', 'mktree');
    const lines: string[] = [];
    for (let index = 0; index < ENTRIES; index++) lines.push(`040000 tree ${empty}\tt${String(index).padStart(6, '0')}\n`);
    const alpha = await gitWithInput(bare, `040000 tree ${alphaTree}\talpha\n${lines.join('')}`, 'mktree');
    const root = await gitWithInput(bare, `040000 tree ${alpha}\ttools\n`, 'mktree');
    const commit = await gitWithInput(bare, '', 'commit-tree', root, '-m', 'wide');
    await git(bare, 'update-ref', 'refs/heads/main', commit);
    const run = await folder.scan(url, { timeoutMs: 110_000 });
    expect(run.stderr).not.toContain('Maximum call stack size exceeded');
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const result = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: string[] };
    expect(result.tools.map((tool) => tool.name)).toEqual(['alpha']);
    expect(result.errors).toEqual([]);
  }, 120_000);
});
