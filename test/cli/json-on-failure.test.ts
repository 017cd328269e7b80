// Review R, R21: README says `--json` prints one JSON document on stdout, but `hldp receipts zzzzzzzz --json` and
// `hldp approvals show nope --json` (exit 1) printed nothing there: `hldp receipts $ID --json | jq .` got empty input.
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('--json when the answer is a failure (exit 1)', () => {
  it.each([
    [['receipts', 'zzzzzzzz', '--json'], 'RECEIPT_NOT_FOUND', /^no receipt 'zzzzzzzz' in /, 1],
    [['approvals', 'show', 'nope', '--json'], 'APPROVAL_NOT_FOUND', /^no approval request 'nope' that 'local' may see in \S+receipts\.db$/, 1],
    // a server the config does not name is the config's to fix: exit 2 (review R, R14), the document printed all the same
    [['import', 'mcp', '--server', 'nope', '--json'], 'IMPORT_FAILED', /^no MCP server named 'nope' in the gateway config/, 2],
  ])('hldp %j prints one JSON document on stdout naming the code', async (args, code, error, status) => {
    const run = await runCli(args, { env: home.env, cwd: home.path });
    expect(run.code).toBe(status);
    const answer = JSON.parse(run.stdout) as { code: string; error: string };
    expect(answer.code).toBe(code);
    expect(answer.error).toMatch(error);
    expect(run.stderr).toContain(answer.error);
  });
});
