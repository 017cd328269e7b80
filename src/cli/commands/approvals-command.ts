import { DEFAULT_REPOSITORY } from '../../config/index.js';
import type { ToolIndex } from '../../core/index.js';
import type { ApprovalAnswer } from '../../gateway/service/index.js';
import type { ApprovalRecord, ApprovalStatus } from '../../store/index.js';
import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeJson, writeLines, type Command, type CommandIo } from '../command.js';
import { detail, summary } from '../approval-lines.js';
import { terminalSafe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';

const ACTIONS = ['list', 'show', 'approve', 'deny', 'cancel'] as const;
const STATUSES: readonly string[] = ['pending', 'approved', 'denied', 'expired', 'cancelled', 'all'];

/**
 * `hldp approvals`: the approval queue, as the principal in `HLDP_TOKEN` (or `local`): list, show (optionally
 * waiting for the decision), approve (runs exactly the bound call, once, here), deny, cancel.
 */
export const approvalsCommand: Command = {
  name: 'approvals',
  usage: `(list [--status S|all] [--limit N] | show ID [--wait S] | approve ID [--reason R] | deny ID [--reason R] | cancel ID) [--json] (${REPOSITORY_USAGE} | --url URL [--token T])`,
  summary: 'the approval queue: list pending requests, show one, approve (runs the call once), deny or cancel; acts as HLDP_TOKEN\'s principal, else local; with --url, at a running gateway with your own token',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, status: { type: 'string' }, reason: { type: 'string' }, wait: { type: 'string' }, limit: { type: 'string', short: 'n' }, url: { type: 'string' } },
  optionHelp: {
    limit: 'N: at most N requests, newest first (list)', reason: 'R: why, recorded with the decision (approve, deny, cancel)', wait: 'S: wait up to S seconds for the request to be decided (show)',
    url: "URL: a running gateway's address (else this process reads the store): the queue over its HTTP API, as the principal of --token (else HLDP_TOKEN, then HLDP_API_TOKEN); an approved call runs at the gateway",
    // a token in argv is in /proc/PID/cmdline, which every local user reads (review Z15, I-2)
    token: "T: with --url, the principal's token to act as; prefer HLDP_TOKEN, since a --token on the command line is readable by every user of this machine (ps); without --url, the token of an http(s) git repository R (HLDP_REPO_TOKEN)",
  },
  maxPositionals: 2,
  async run(flags, positionals, io) {
    const [action = 'list', id] = positionals;
    if (!(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown approvals action '${action}'; use ${ACTIONS.join(', ')}`);
    if (action !== 'list' && !id) throw new UsageError(`approvals ${action} needs a request id, e.g. hldp approvals ${action} apr_3kq...; list them with hldp approvals list`);
    const status = typeof flags.status === 'string' ? flags.status : 'pending';
    if (!STATUSES.includes(status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
    const wait = typeof flags.wait === 'string' ? Number(flags.wait) : 0;
    if (!Number.isSafeInteger(wait) || wait < 0 || wait > 3600) throw new UsageError('--wait is whole seconds from 0 to 3600');
    const limit = typeof flags.limit === 'string' ? Number(flags.limit) : 50;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit is a whole number from 1 to 1000');
    const json = flags.json === true;
    const reason = typeof flags.reason === 'string' ? flags.reason : null;
    // an approver who is no operator: the gateway's HTTP API with their own token, no config or store here (review userZ6, F4(c))
    if (typeof flags.url === 'string') {
      const local = (['repo', 'ref', 'config'] as const).filter((name) => flags[name] !== undefined);
      if (local.length > 0) throw new UsageError(`--url asks a running gateway, which reads its own repository and store: leave out ${local.map((name) => `--${name}`).join(', ')}`);
      if (!/^https?:\/\/[^/]/.test(flags.url)) throw new UsageError(`--url must be the gateway's http(s) URL, e.g. http://127.0.0.1:3900, got '${flags.url}'`);
      // with --url, --token is the principal's (whom to act as), as hldp tail's is: no repository is read
      const token = typeof flags.token === 'string' ? flags.token : (process.env.HLDP_TOKEN ?? process.env.HLDP_API_TOKEN);
      const { approvalsOverHttp } = await import('../approvals-over-http.js');
      return approvalsOverHttp({ url: flags.url, token, action: action as (typeof ACTIONS)[number], id, status, limit, wait, reason, json }, io);
    }
    const { cliCaller, withGateway } = await import('../with-gateway.js');
    const { changedSince, otherRegistry, servedRegistry } = await import('../../policy/index.js');
    const { secretsHeldWords } = await import('../../core/index.js');
    // a read or a decision of what a gateway stored: a store that does not exist is said and never created, and an
    // answer that finds nothing names the store it read (an approver told "no pending approval requests" of an empty
    // SQLite file while the requests waited in PostgreSQL: review userZ4, F7)
    return withGateway(flags, io, async (gateway, store) => {
      const principal = gateway.principal(cliCaller(gateway));
      // a configured secret an agent put in its params is shown to no one, as GET /v1/approvals and the console show them
      const shown = (record: ApprovalRecord): ApprovalRecord => ({ ...record, params: gateway.shownParams(record.params) });
      // a pending request outdated at the commit this process reads, marked as the console marks it: approving it there
      // cancels it (review userZ6 F2)
      const outdated = (record: ApprovalRecord): { outdated?: string; registry?: string } => {
        if (record.status !== 'pending') return {};
        // filed by a gateway serving another registry: this process cannot tell, and says how to read that one (review userZ10, U10-1)
        const other = otherRegistry(record, servedRegistry(gateway.config.repository, DEFAULT_REPOSITORY, gateway.config.configFile));
        if (other !== undefined) return { registry: other };
        const found = gateway.registry.matcher.lookup(record.tool);
        const changed = changedSince(record, gateway.registry.index, found.found ? found.tool : undefined);
        return changed === undefined ? {} : { outdated: `${changed}: approving it at a gateway serving that commit cancels it, nothing run; deny it, or close it as outdated in the console` };
      };
      if (action === 'list') {
        const records = (await gateway.approvals.list({ ...(status === 'all' ? {} : { status: status as ApprovalStatus }), limit }, principal)).map((record) => ({ ...shown(record), ...outdated(record) }));
        if (json) writeJson(io, { approvals: records });
        // a store that does not exist was said already
        else if (records.length === 0 && !store.missing) io.stderr.write(terminalSafe(`no ${status === 'all' ? '' : `${status} `}approval requests${principal.roles.has('approver') ? '' : ` of '${principal.name}'`} in ${store.name}`) + '\n');
        else writeLines(io.stdout, records.map(summary));
        return 0;
      }
      if (action === 'show') {
        if (!(await gateway.approvals.get(id!, principal))) return missing(io, id!, principal.name, json, store.name);
        const waited = await gateway.approvals.wait(id!, wait * 1000);
        if (!waited) return missing(io, id!, principal.name, json, store.name);
        // the gateway's secrets its params hold, by setting: shown [REDACTED], they run as written (review userZ6 F12)
        const held = gateway.secretsHeld(waited.approval.params);
        const state = { ...waited, approval: { ...shown(waited.approval), ...outdated(waited.approval) }, ...(held.length > 0 ? { secrets_held: held } : {}) };
        if (json) writeJson(io, state);
        else writeLines(io.stdout, [detail(state.approval), ...(held.length > 0 ? [terminalSafe(`secrets   ${secretsHeldWords(held)}`)] : []), ...(state.receipt ? [`receipt ${state.receipt.id}: ${state.receipt.ok ? 'ok' : (state.receipt.code ?? 'failed')}`] : [])]);
        return state.approval.status === 'pending' || state.approval.status === 'approved' ? 0 : 1;
      }
      // only approving reads the index (the tool, its params, the commit it runs against): a stale one is said there, as hldp call says it
      const stale = action === 'approve' ? gateway.registry.index.stale : undefined;
      // a process given no --repo or --config reads this package's starter tools: a request of another commit is then
      // most likely one the gateway's repository made, and "the definition changed" hid that (review userZ6, F13)
      const starter = gateway.config.repository.source === DEFAULT_REPOSITORY ? DEFAULT_REPOSITORY : undefined;
      const print = (answer: ApprovalAnswer) => printAnswer(answer, { io, json, decider: principal.name, approve: action === 'approve', shown, stale, store: store.name, starter, commit: gateway.registry.index.commit });
      if (action !== 'approve') return print(action === 'cancel' ? await gateway.cancelApproval(id!, principal, reason) : await gateway.decide(id!, principal, 'deny', { reason }));
      const { warnIfStale } = await import('../stale-index.js');
      warnIfStale(gateway.registry.index, io);
      // approve runs the call here: as in hldp call, Ctrl-C or SIGTERM cancels it, its CANCELLED receipt stored and printed (review K, K12)
      const { runInterruptible } = await import('../interrupt.js');
      return runInterruptible(async (signal) => print(await gateway.decide(id!, principal, 'approve', { reason, signal, leaveIfElsewhere: true })));
      // list and show only read the queue: a principal (or target) whose token is not in this shell is left out, as
      // the read commands leave it, so that an approver needs only their own token, not every agent's (review userZ6 F4)
    }, action === 'list' || action === 'show' ? 'optional' : 'required', 'read');
  },
};

/** Prints a decision's answer; 1 when it was refused or the call an approval ran failed, else 0. */
async function printAnswer(answer: ApprovalAnswer, how: { io: CommandIo; json: boolean; decider: string; approve: boolean; shown: (record: ApprovalRecord) => ApprovalRecord; stale: ToolIndex['stale']; store: string; starter?: string | undefined; commit?: string }): Promise<number> {
  const { io, json } = how;
  if (!answer.ok && answer.code === 'APPROVAL_MISMATCH' && how.starter !== undefined && answer.approval && answer.approval.commit !== how.commit) {
    const id = answer.approval.id;
    answer = { ...answer, error: `this process read the starter tools of this package (${how.starter}), since no --repo or --config was given (nor HLDP_REPO or HLDP_CONFIG), not the repository request '${id}' was made over: run it with the gateway's config, hldp approvals approve ${id} --config FILE (or --repo SOURCE). ${answer.error}` };
  }
  // "no approval request 'apr_…'" names the store it was looked for in: another store than the gateway's is the likely cause
  if (!answer.ok && answer.code === 'APPROVAL_NOT_FOUND') answer = { ...answer, error: `${answer.error} (looked for in ${how.store})` };
  const stale = how.stale ? { stale: how.stale } : {};
  const elsewhere = answer.ok && answer.runs_elsewhere ? { filed_by: answer.runs_elsewhere.filed_by, message: answer.runs_elsewhere.message } : {};
  if (json) writeJson(io, answer.ok ? { approval: how.shown(answer.approval), receipt: answer.receipt, ...elsewhere, ...stale, ...(answer.lease_lapsed ? { lease_lapsed: answer.lease_lapsed } : {}) } : { code: answer.code, error: answer.error, ...(answer.receipt ? { receipt: answer.receipt } : {}), ...stale });
  if (!answer.ok) {
    // the error quotes what an agent sent (a tool name, params) and what the store holds: escaped, as every line here (review Z13, Z13-3)
    if (!json) io.stderr.write(`${terminalSafe(`${answer.code}: ${answer.error}`)}\n`);
    return 1;
  }
  const { leaseLapsed, receiptDetail } = await import('../format-outcome.js');
  if (!json) {
    io.stderr.write(`${terminalSafe(`${answer.approval.id} ${answer.approval.status} by ${how.decider}`)}\n`);
    // approved where it does not run: it runs at the gateway that filed it (review userZ4, F3)
    if (answer.runs_elsewhere) io.stderr.write(`${terminalSafe(answer.runs_elsewhere.message)}\n`);
    if (answer.receipt) writeLines(io.stdout, [receiptDetail(answer.receipt)]);
  }
  if (answer.lease_lapsed) return leaseLapsed(answer.lease_lapsed, io);
  // approve: 0 when the call it ran says ok; deny and cancel did what was asked
  return how.approve && answer.receipt && !answer.receipt.ok ? 1 : 0;
}

// --json answers on stdout whatever the outcome, as GET /v1/approvals/:id does (review R, R21)
function missing(io: CommandIo, id: string, principal: string, json: boolean, store: string): number {
  const message = `no approval request '${id}' that '${principal}' may see in ${store}`;
  if (json) writeJson(io, { code: 'APPROVAL_NOT_FOUND', error: message });
  io.stderr.write(`${terminalSafe(message)}\n`);
  return 1;
}
