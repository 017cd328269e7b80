import type { Command } from './command.js';

/**
 * What each option means, for `hldp help COMMAND` (the README promises a command's every option there; it printed the
 * usage line alone, so nothing told `call --token`, a repository's token, from `tail --token`, a principal's: review
 * userV, V5). A command whose option means something else says so in its own `optionHelp`.
 */
const OPTION_HELP: Record<string, string> = {
  repo: 'R: the tools registry: a folder holding tools/, a local git repository or an http(s) git URL (HLDP_REPO; default: the embedded native-repo/)',
  ref: "REF: the branch, tag or commit of R to read (HLDP_REPO_REF; default HEAD)",
  token: "T: the token of an http(s) git repository R (HLDP_REPO_TOKEN), never a principal's: the command acts as the principal whose token is in HLDP_TOKEN, else as local (refused when T is a principal's or R is local)",
  config: 'FILE: the gateway config (HLDP_CONFIG): principals, store, data_dir, workspace_root…',
  json: 'print one JSON document on stdout, whatever the exit status',
  timeout: "MS: this call's own deadline (ms, or 90s, 2m, 1h), within the tool's max_timeout_ms and the gateway's ceiling",
  params: 'JSON|@FILE|-: the params, a JSON object inline, from a file, or from stdin',
  status: 'S|all: the requests of that status (pending, approved, denied, expired, cancelled) or all; default pending',
  reason: 'R: why, recorded with the decision',
  wait: 'S: wait up to S seconds for the request to be decided',
  limit: 'N: at most N entries',
  format: 'openai|anthropic|mcp: whose function-spec format',
  port: 'P: the port to listen on',
  host: 'H: the address to listen on (default 127.0.0.1; beyond loopback needs credentials)',
  root: 'DIR: the folder the tools may act in',
  sandbox: 'auto|required|off: isolate tools with bubblewrap where it runs, refuse to run without it, or not (HLDP_SANDBOX)',
  server: "NAME: the MCP server of the config's mcp_servers to import from",
  out: 'DIR: where the drafts go (default tools/ of the current folder)',
  force: 'overwrite drafts that exist',
  toolsets: 'a,b: start the session with these toolsets enabled',
  'as-local': "act as local, the operator at this machine (every role), where principals are configured and HLDP_TOKEN is not set",
  failed: 'only receipts of failed calls',
  ok: 'only receipts of calls that succeeded',
  rejected: 'the calls refused before anything ran, instead of receipts',
  since: 'ISO: only what happened at or after this date or time',
  offset: 'N: skip the first N',
  url: "URL: the running gateway's http(s) URL (HLDP_URL; default http://127.0.0.1:3900)",
  types: 'a,b: only events of these types (e.g. receipt.stored,approval.requested; failures)',
  failures: 'only failures (failed receipts, rejected calls, failed scans, broken definitions)',
  after: 'ID: start after this event id',
  count: 'N: stop after N events',
  color: 'color the lines even when stdout is not a terminal',
  window: 'MIN: how long after a weak match a call counts as its answer, in minutes (default 10)',
  min: 'N: propose a request seen at least N times (default 1)',
  staged: "check the registry as git's index holds it (for a pre-commit hook)",
};

/** The `--help` text of a command: its usage line, summary, and one line for each option saying what it means. */
export function commandHelp(command: Command): string {
  const rows = Object.entries(command.options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}`;
    return [flag, command.optionHelp?.[name] ?? OPTION_HELP[name] ?? ''] as const;
  });
  const width = Math.max(0, ...rows.map(([flag]) => flag.length));
  return [
    `usage: hldp ${command.name} ${command.usage}`,
    `  ${command.summary}`,
    ...(rows.length ? ['options:', ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`)] : []),
    '',
  ].join('\n');
}
