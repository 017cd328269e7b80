import { execFileSync } from 'node:child_process';

/**
 * Commits `files` (path → text) on top of REPO's main with `git fast-import`: no working tree is read or written, so a
 * bare clone (or one whose checkout is behind) of 100,000 tools takes a commit in milliseconds. Returns the new commit.
 */
export function commitAhead(repo: string, files: Record<string, string>, message: string): string {
  const parts = ['commit refs/heads/main', `committer Bench <bench@example.test> ${Math.floor(Date.now() / 1000)} +0000`, `data ${Buffer.byteLength(message)}`, message, 'from refs/heads/main^0'];
  for (const [path, text] of Object.entries(files)) parts.push(`M 100644 inline ${path}`, `data ${Buffer.byteLength(text)}`, text);
  execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: `${parts.join('\n')}\n` });
  return execFileSync('git', ['-C', repo, 'rev-parse', 'refs/heads/main'], { encoding: 'utf8' }).trim();
}
