import { runCli } from './run-cli.js';

/** What the workspace tests read of a receipt `hldp call --json` (or `hldp confirm --json`) prints. */
export interface CliReceipt {
  ok: boolean;
  code: string | null;
  error: string | null;
  output: string;
  id: string;
}

/**
 * A real `hldp call TOOL --json --params PARAMS` (with `--repo` when given) in `env`; a call that waits for its
 * caller's confirmation is then confirmed with `hldp confirm TOKEN`, as an agent does with the confirm meta-tool.
 * The receipt of the run.
 */
export async function confirmedCall(tool: string, params: object, options: { env: NodeJS.ProcessEnv; cwd?: string; repo?: string; timeoutMs?: number }): Promise<CliReceipt> {
  const repo = options.repo ? ['--repo', options.repo] : [];
  const run = { env: options.env, ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  const answer = JSON.parse((await runCli(['call', tool, ...repo, '--json', '--params', JSON.stringify(params)], run)).stdout) as CliReceipt & { status?: string; token?: string };
  if (answer.status !== 'confirmation_required') return answer;
  return JSON.parse((await runCli(['confirm', answer.token!, ...repo, '--json'], run)).stdout) as CliReceipt;
}
