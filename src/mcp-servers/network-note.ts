import type { McpCallOutcome } from '../executors/index.js';
import type { Sandbox } from '../sandbox/index.js';
import type { McpServerConfig } from './server-config.js';

// what Node, curl, Python's requests and Go's net/http say when a host cannot be reached or named
const NETWORK_FAILURE = /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|getaddrinfo|network is unreachable|could not resolve|name resolution|connection refused/i;

/**
 * One line for a failed call's receipt when the server runs in the sandbox without network and its failure reads as
 * a host it could not reach: the raw error says "fetch failed", which an operator reads as the server's bug, while
 * the cause is the gateway's sandbox (review userX, X4). Undefined otherwise; the raw error is never changed.
 */
export function networkNote(name: string, config: McpServerConfig, sandbox: Sandbox | undefined, outcome: McpCallOutcome): string | undefined {
  if (config.transport !== 'stdio' || config.sandbox?.network === true || sandbox?.status.sandbox !== 'on') return undefined;
  if (!NETWORK_FAILURE.test(failureText(outcome))) return undefined;
  return `MCP server '${name}' runs in the sandbox without network (mcp_servers.${name}.sandbox.network is not true): a host it tried to reach was out of its reach; give it network: true in the gateway config if it needs one`;
}

/** The words a failed call's outcome says: its error, or the text of a tool answer marked as an error. */
export function failureText(outcome: McpCallOutcome): string {
  if (!outcome.ok) return outcome.message;
  if (outcome.answer.isError !== true) return '';
  return outcome.answer.content.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('\n');
}
