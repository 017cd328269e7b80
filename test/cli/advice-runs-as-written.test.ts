// Review userZ10, U10-1: a 202 from `hldp serve --repo R` advised `hldp confirm TOKEN` and `hldp approvals show ID
// --wait 30`; run as written (no --repo) the CLI read this package's starter tools and said of the good request
// "outdated … deny it", and `hldp approvals list` marked it OUTDATED. The advice now names the gateway's --repo, and a
// CLI reading another registry says which one the gateway serves and how to read it, never "deny it".
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const NATIVE = fileURLToPath(new URL('../../native-repo', import.meta.url));
const POLICY = ['name: mine', 'author: ICE-GL-ZY001', 'why: I look at each command first.', 'approval:', '  - tools: [shell-exec]', '    decision: approve', '    reason: I look first', '    self_approval: true', ''].join('\n');

// the words after `hldp` in the message, up to the advice's closing parenthesis or ` (or`
function advised(message: string, start: string): string[] {
  const at = message.indexOf(`hldp ${start}`);
  expect(at, message).toBeGreaterThanOrEqual(0);
  const rest = message.slice(at + 'hldp '.length);
  return rest.slice(0, rest.search(/ \(or |\)/)).split(' ');
}

describe("a 202's CLI advice at a gateway serving --repo R (U10-1)", () => {
  it('runs as written, and a CLI reading another registry says which to read instead of "deny it"', async () => {
    const repo = join(home.path, 'my tools');
    await cp(NATIVE, repo, { recursive: true });
    await mkdir(join(repo, 'policies'), { recursive: true });
    await writeFile(join(repo, 'policies', 'mine.hdlp'), POLICY);
    const server = await home.serve(['--repo', repo]);
    const call = async () => {
      const filed = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo ran-as-advised' } } });
      expect(filed.status, JSON.stringify(filed.json)).toBe(202);
      return filed.json as { id: string; token: string; message: string };
    };
    const first = await call();
    const confirm = advised(first.message, 'confirm');
    expect(confirm.slice(0, 3)).toEqual(['confirm', first.token, '--repo']);
    expect(confirm.slice(3).join(' ')).toBe(`'${repo}'`);

    // the user's habit first: a bare CLI reads the starter tools, and says so rather than "outdated … deny it"
    const list = await runCli(['approvals', 'list'], { env: home.env });
    expect(list.stdout, list.stderr).toContain(`${first.id}  pending`);
    expect(list.stdout).not.toContain('OUTDATED');
    expect(list.stdout).toContain(`ANOTHER REGISTRY: request '${first.id}' was filed by a gateway serving ${repo}`);
    const bare = await runCli(['confirm', first.token], { env: home.env });
    expect(bare.code, bare.stdout + bare.stderr).toBe(1);
    expect(bare.stderr).not.toContain('deny it');
    expect(bare.stderr).toContain(`was filed by a gateway serving ${repo}, and this process reads this package's starter tools (no --repo)`);
    expect(bare.stderr).toContain(`run this command with --repo '${repo}'`);

    // the advice as written (the shell's quotes taken off): it runs the call
    const asWritten = await runCli([...confirm.slice(0, 3), repo], { env: home.env });
    expect(asWritten.code, asWritten.stdout + asWritten.stderr).toBe(0);
    expect(asWritten.stdout).toContain('ran-as-advised');
    const show = advised(first.message, 'approvals show');
    expect(show.slice(0, 6)).toEqual(['approvals', 'show', first.id, '--wait', '30', '--repo']);
    expect(show.slice(6).join(' ')).toBe(`'${repo}'`);
    const shown = await runCli([...show.slice(0, 6), repo], { env: home.env });
    expect(shown.stdout, shown.stderr).toContain(`${first.id}  approved`);
    expect(shown.stdout).not.toContain('OUTDATED');
  });
});
