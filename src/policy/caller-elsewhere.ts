import type { ApprovalRecord } from '../store/index.js';
import { API_TOKEN_PRINCIPAL, LOCAL_PRINCIPAL } from './principals.js';

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

/**
 * What `local`, the operator at the CLI, is told of a confirmation token made for another principal's call: whose it
 * is and what confirms it. "No call waits for this token" was untrue while `hldp approvals list` showed it pending
 * (review userW, W4). Only `local` is told (it may list every request anyway); any other presenter is answered as for
 * an unknown token, so that a leaked token tells nothing.
 */
export function othersToken(record: ApprovalRecord): string {
  return (
    `this confirmation token is for a call of '${record.caller}' (request '${record.id}', tool '${record.tool}', pending until ${record.expires_at}), and this process acts as '${LOCAL_PRINCIPAL.name}': a token confirms only its own caller's call. ` +
    `Nothing was decided. Confirm it as '${record.caller}': HLDP_TOKEN set to the token it called with, and ${principalSource(record.caller)}; or decide it as an approver: hldp approvals approve ${record.id}`
  );
}
