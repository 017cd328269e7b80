import type { ApprovalRecord } from '../store/index.js';
import { API_TOKEN_PRINCIPAL } from './principals.js';

/**
 * What a process must be given to know principal `name` as the gateway knows it, in the words an operator sets it by:
 * api_token's principal comes from HLDP_API_TOKEN (or the file's api_token), every other one from the config file and
 * its token variable. A CLI run without them knows none of them (review userW, W3, W4).
 */
export function principalSource(name: string): string {
  const variable = `HLDP_PRINCIPAL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;
  const fromFile = `the gateway's --config FILE (or HLDP_CONFIG), which declares principals.${name}, with its token as the gateway has it (${variable}, or token_sha256 in the file)`;
  if (name !== API_TOKEN_PRINCIPAL) return fromFile;
  return `HLDP_API_TOKEN set to the gateway's api_token ('${name}' is its principal), or ${fromFile}`;
}

/**
 * Why a one-shot CLI process leaves a request pending rather than decide it: its caller is no principal of this
 * process's configuration — which says what this shell was given, not that the principal was removed. Judged as
 * "removed", the request was cancelled for good and its caller told its principal was gone (review userW, W3).
 */
export function callerUnknownHere(record: ApprovalRecord): string {
  return (
    `request '${record.id}' was made by '${record.caller}', a principal this process's configuration does not hold; nothing was decided, it stays pending (until ${record.expires_at}). ` +
    `Run this command with ${principalSource(record.caller)}, or decide it at the gateway (its console, or POST /v1/approvals/${record.id}/approve)`
  );
}
