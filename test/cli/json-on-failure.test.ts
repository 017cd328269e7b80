// Review R, R21: README says `--json` prints one JSON document on stdout, but `hldp receipts zzzzzzzz --json` and
// `hldp approvals show nope --json` (exit 1) printed nothing there: `hldp receipts $ID --json | jq .` got empty input.
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('--json when the answer is a failure (exit 1)', () => {
  it.each([
    [['receipts', 'zzzzzzzz', '--json'], 'RECEIPT_NOT_FOUND', /^no receipt 'zzzzzzzz' in /],
    [['approvals', 'show', 'nope', '--json'], 'APPROVAL_NOT_FOUND', /^no approval request 'nope' that 'local' may see$/],
    [['import', 'mcp', '--server', 'nope', '--json'], 'IMPORT_FAILED', /^no MCP server named 'nope' in the gateway config/],
  ])('hldp %j prints one JSON document on stdout naming the code', async (args, code, error) => {
    const run = await runCli(args, { env: home.env, cwd: home.path });
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout) as { code: string; error: string };
    expect(answer.code).toBe(code);
    expect(answer.error).toMatch(error);
    expect(run.stderr).toContain(answer.error);
  });
});
