import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initRepository } from '../helpers/git.js';
import { api, type PolicyGateway, startPolicyGateway } from '../policy/support.js';

// Review K's K21: the starter "read-only" git-ops ran programs a workspace repository's .git/config names
// (diff.external; likewise a textconv driver, core.pager, log.showSignature's gpg.program), so any tool that can
// write a file in the workspace (file-write, which its caller confirms itself) gave code execution.

let gateway: PolicyGateway;
let repo: string;
const RAN = (name: string) => join(repo, `${name}-RAN`);

beforeAll(async () => {
  gateway = await startPolicyGateway({});
  repo = await initRepository(join(gateway.folder, 'workspace', 'project'));
  await writeFile(join(repo, 'notes.txt'), 'one\n');
  execFileSync('git', ['add', 'notes.txt'], { cwd: repo });
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'notes'], { cwd: repo });
  await writeFile(join(repo, 'notes.txt'), 'two\n');
  await writeFile(join(repo, '.gitattributes'), 'notes.txt diff=shout\n');
  const config = (name: string, key: string) => execFileSync('git', ['config', key, `touch ${name}-RAN; true`], { cwd: repo });
  config('external', 'diff.external');
  config('textconv', 'diff.shout.textconv');
  config('pager', 'core.pager');
  execFileSync('git', ['config', 'log.showSignature', 'true'], { cwd: repo });
  execFileSync('git', ['config', 'gpg.program', `${join(repo, 'gpg')}`], { cwd: repo });
  await writeFile(join(repo, 'gpg'), `#!/bin/sh\ntouch ${RAN('gpg')}\n`, { mode: 0o755 });
});
afterAll(() => gateway?.stop());

const gitOps = (params: Record<string, unknown>) => api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'git-ops', params: { path: 'project', ...params } } });

describe('the starter git-ops over a repository whose .git/config names programs', () => {
  it.each(['diff', 'show', 'log', 'status', 'branch'])('runs none of them for %s, and still answers', async (op) => {
    const answer = await gitOps({ op });
    expect(answer.body).toMatchObject({ ok: true });
    if (op === 'diff') expect(answer.body.output).toContain('-one\n+two');
    for (const name of ['external', 'textconv', 'pager', 'gpg']) expect(existsSync(RAN(name)), `${name} ran for ${op}`).toBe(false);
  });
});
