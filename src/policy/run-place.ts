import { formatByteSize, receiptSeen, type Receipt, type SandboxCeiling } from '../core/index.js';
import { canonicalJson, type ApprovalFiler, type ApprovalRecord, type RunPlace } from '../store/index.js';
import type { Principal } from './principals.js';
import { differingGroups, type SettingGroup } from './run-settings.js';

// each setting a place holds, with the words an operator sets it by: a variable, or (none) only the config file
const SETTINGS: ReadonlyArray<{ key: keyof RunPlace; what: string; variable?: string }> = [
  { key: 'workspace', what: 'workspace', variable: 'HLDP_WORKSPACE' },
  { key: 'sandbox', what: 'sandbox mode', variable: 'HLDP_SANDBOX' },
  { key: 'run_as', what: 'sandbox.run_as', variable: 'HLDP_SANDBOX_RUN_AS' },
  { key: 'hide', what: 'sandbox.hide' },
  { key: 'ceiling', what: 'sandbox.ceiling' },
  { key: 'max_call_timeout_ms', what: 'deadline ceiling (max_call_timeout_ms)', variable: 'HLDP_MAX_CALL_TIMEOUT_MS' },
];

// the settings a request filed before they were kept lacks (review Z: the first places held only the first three)
const LATER: ReadonlyArray<keyof RunPlace> = ['hide', 'ceiling', 'max_call_timeout_ms'];

// what one who may not read the places is told in their stead: that an administrator can
const PLACE_WITHHELD = 'An administrator can see the values, and which instance filed it';

/**
 * Whether `principal` reads where and how instances run calls — a request's `rule.place` (workspace, run_as, hidden
 * paths, ceiling, digests), `rule.filed_by` (the filing instance's host and URL) and a refusal's values: an admin,
 * which on a gateway with no credentials is `local` (review Z3, Z3-4), as only an admin reads broken files' errors.
 */
export function readsPlaces(principal: Pick<Principal, 'roles'>): boolean {
  return principal.roles.has('admin');
}

/** What a request's `run.by` reads to one who is no admin: which gateway process runs it (host, pid, instance) is an admin's. */
export const RUNNER_WITHHELD = 'a gateway (an administrator can see which)';

/**
 * A request as `principal` may read it: whole for an admin; for anyone else without `rule.place` and `rule.filed_by`
 * (`rule.place_withheld` saying who sees them), and its run's runner (`run.by`: host, pid and instance) withheld,
 * its lease kept (review Z5, Z5-8).
 */
export function approvalSeenBy(record: ApprovalRecord, principal: Pick<Principal, 'roles'>): ApprovalRecord {
  if (readsPlaces(principal)) return record;
  const run = record.run === null ? null : { by: RUNNER_WITHHELD, lease_until: record.run.lease_until };
  if (record.rule.place === undefined && record.rule.filed_by === undefined) return { ...record, run };
  const { place: _place, filed_by: _filer, ...rule } = record.rule;
  return { ...record, run, rule: { ...rule, place_withheld: 'where and how the instance that filed it runs calls (place), and which instance that is (filed_by): an administrator can see them' } };
}

/**
 * A receipt as `principal` may read it: whole for an admin; for anyone else its `source` without the host name, the
 * instance's URL or the repository's path on that host (review Z7, Z7-1: the same rule as `approvalSeenBy`, for the
 * caller's receipt of a call run elsewhere, and every other receipt one who is no admin reads). The stored receipt,
 * its hash chain and `GET /v1/receipts/verify` are unchanged: the view is filtered, not the record.
 */
export function receiptSeenBy(receipt: Receipt, principal: Pick<Principal, 'roles'>): Receipt {
  return receiptSeen(receipt, readsPlaces(principal));
}

/**
 * Why this process may not run an approved request's call (undefined: it may): the request was filed by a process
 * that runs calls elsewhere — another workspace, another sandbox, less hidden from tools (`sandbox.hide`), a higher
 * ceiling or a longer deadline — and the approver's process would run the agent's call its own way
 * (`hldp approvals approve` from a person's home folder ran it there, read and wrote their files: review userY, Y8;
 * one following this message's variables without `--config` ran it with nothing of `sandbox.hide` hidden: review Z).
 * Asked of one-shot CLI processes (serving instances ask `instancePlaceProblem`). A request stored before its place,
 * or a part of it, was kept cannot be placed: the CLI leaves it to a gateway, and says so.
 */
export function placeProblem(record: ApprovalRecord, here: RunPlace): string | undefined {
  const decideThere = `decide it at the gateway that filed it (${gatewayRoutes(record)})`;
  const there = record.rule.place;
  if (there === undefined) {
    return `request '${record.id}' was filed before requests recorded where their call runs (the gateway's workspace and sandbox), so this process cannot tell whether its own (workspace ${here.workspace}) is that one; nothing was decided, it stays pending (until ${record.expires_at}): ${decideThere}`;
  }
  const differing = differingSettings(there, here);
  const groups = differingGroups(there, here);
  if (differing.length === 0 && groups.length === 0) {
    const unknown = LATER.filter((key) => there[key] === undefined);
    if (unknown.length === 0 && there.runs_with !== undefined) return undefined;
    // fail closed: the parts it lacks may be what this process would run the call with less of (or with other secrets)
    const named = [...SETTINGS.filter(({ key }) => unknown.includes(key)).map(({ what }) => what), ...(there.runs_with === undefined ? ['inherited environment and targets (apis, gatekeepers, forgejo, MCP servers)'] : [])].join(', ');
    return `request '${record.id}' was filed before requests recorded the gateway's ${named}, so this process cannot tell whether it would run the call as confined as that gateway would; nothing was decided, it stays pending (until ${record.expires_at}): ${decideThere}`;
  }
  const what = described(differing, groups, there, here, "this process's");
  const variables = differing.filter(({ variable }) => variable !== undefined).map(({ key, variable }) => (there[key] === null ? `${variable} unset` : `${variable}=${String(there[key])}`));
  const fileOnly = differing.filter(({ variable }) => variable === undefined).map(({ what }) => what);
  const fix = groups.length > 0
    ? `run this command as that gateway runs: with its config file (--config FILE, or HLDP_CONFIG=FILE) and its environment${variables.length ? `, and ${variables.join(', ')}` : ''}`
    : fileOnly.length === 0
    ? `run this command with that gateway's settings (its --config, or ${variables.join(', ')})`
    : `run this command with that gateway's config file (--config FILE, or HLDP_CONFIG=FILE): ${fileOnly.join(' and ')} ${fileOnly.length === 1 ? 'is' : 'are'} read from it only, no variable sets ${fileOnly.length === 1 ? 'it' : 'them'}${variables.length ? `; and ${variables.join(', ')} as well` : ''}`;
  return `request '${record.id}' was filed by a gateway that runs calls elsewhere than this process would: ${what}. Nothing ran and nothing was decided; it stays pending (until ${record.expires_at}): ${decideThere}, or ${fix}`;
}

/**
 * Why this serving instance may not run an approved request's call (undefined: it may): the process that filed it
 * runs calls elsewhere or confined otherwise (see `placeProblem`), so that approving it here would run the agent's
 * call in this instance's workspace, or with less hidden from it. Instances sharing a store ran each other's
 * approved requests whatever their workspaces; and one of the same workspace ran it with its own inherited environment
 * and targets' credentials (review Z3, 1: `runs_with`, compared by digest and named without values). Only the
 * settings the request recorded are compared: a request filed
 * before its place was kept runs at any instance, as before, and one filed before its hide and ceilings were is
 * judged by its workspace, sandbox mode and run_as (a serving instance is where such a request was meant to be
 * decided: the CLI sends it here). `values` false (a decider who is not an admin): the settings are named without
 * their values, and neither instance by its URL or host.
 */
export function instancePlaceProblem(record: ApprovalRecord, here: RunPlace, self: ApprovalFiler, values = true): string | undefined {
  const there = record.rule.place;
  if (there === undefined) return undefined;
  const differing = differingSettings(there, here);
  const groups = differingGroups(there, here);
  if (differing.length === 0 && groups.length === 0) return undefined;
  const names = [...differing.map(({ what }) => what), ...groups.map(({ same }) => same)].join(', ');
  if (!values) {
    // the settings by name only, and no instance by its URL or host: an agent reading its own request, or an approver
    // who is no admin, learnt the operator's paths, run_as, hidden paths and hosts from them (review Z3, Z3-4)
    const what = namesOnly(differing, groups);
    return `request '${record.id}' was filed by another instance, which runs calls elsewhere than this instance would: ${what}. ${PLACE_WITHHELD} (GET /v1/approvals/${record.id} as an admin). Nothing ran and nothing was decided; it stays pending (until ${record.expires_at}): decide it at the instance that filed it, or at an instance with the same ${names}; any instance may deny it`;
  }
  const filer = record.rule.filed_by;
  const who = filer === undefined ? 'another process' : filer.url === null ? filer.by : `the gateway at ${filer.url} (${filer.by})`;
  const same = `with the same ${names}`;
  const where = filer?.url
    ? `decide it there (${gatewayRoutes(record)}), or at an instance ${same}`
    : `decide it at a gateway ${same} (its console, or POST /v1/approvals/${record.id}/approve), or with hldp approvals approve ${record.id} run with those settings`;
  return `request '${record.id}' was filed by ${who}, which runs calls elsewhere than this instance${self.url ? ` (${self.url})` : ''} would: ${described(differing, groups, there, here, "this instance's")}. Nothing ran and nothing was decided; it stays pending (until ${record.expires_at}): ${where}`;
}

/**
 * What differs between where the request's call runs and this process, in words (each setting with both values, each
 * group by name); undefined when this process runs calls where the request's run, or the request recorded no place.
 */
export function placeDifference(record: ApprovalRecord, here: RunPlace, mine = "this instance's", values = true): string | undefined {
  const there = record.rule.place;
  if (there === undefined) return undefined;
  const differing = differingSettings(there, here);
  const groups = differingGroups(there, here);
  if (differing.length === 0 && groups.length === 0) return undefined;
  return values ? described(differing, groups, there, here, mine) : `${namesOnly(differing, groups)} (${PLACE_WITHHELD.replace(/^An/, 'an')})`;
}

/**
 * Why a one-shot process cannot tell whether it runs calls where the request's call runs (undefined: it can): the
 * request was filed before its place, or part of it, was kept. It decides nothing then (the CLI leaves it to a gateway).
 */
export function placeUnknown(record: ApprovalRecord, here: RunPlace): string | undefined {
  const there = record.rule.place;
  if (there !== undefined && (differingSettings(there, here).length > 0 || differingGroups(there, here).length > 0)) return undefined;
  return placeProblem(record, here);
}

/** The process that filed a request, in words: its host, pid and instance, and the URL it serves at. */
export function filerWords(record: ApprovalRecord, values = true): string {
  const filer = record.rule.filed_by;
  if (filer === undefined) return 'the process that filed it';
  // no host or URL to one who may not read them (review Z3, Z3-4)
  if (!values) return filer.url === null ? 'the process that filed it (an hldp mcp or hldp call, which serves no URL)' : 'the gateway that filed it';
  return filer.url === null ? `the process that filed it (${filer.by}, which serves no URL: an hldp mcp or hldp call)` : `the gateway that filed it, at ${filer.url} (${filer.by})`;
}

// the differing settings by name only, for one who may not read their values (review Z3, Z3-4)
function namesOnly(differing: typeof SETTINGS, groups: SettingGroup[]): string {
  return [...(differing.length ? [`its ${differing.map(({ what }) => what).join(', ')} ${differing.length === 1 ? 'differs' : 'differ'}`] : []), ...groups.map(({ differs }) => differs)].join('; ');
}

/** The settings in which two places differ: only those the request recorded (`there`) are compared. */
function differingSettings(there: RunPlace, here: RunPlace): typeof SETTINGS {
  return SETTINGS.filter(({ key }) => there[key] !== undefined && canonicalJson(there[key]) !== canonicalJson(here[key] ?? null));
}

// what differs: each setting with both values, then each group of what a call runs with by its name only
function described(differing: typeof SETTINGS, groups: SettingGroup[], there: RunPlace, here: RunPlace, mine: string): string {
  return [...(differing.length ? [differences(differing, there, here, mine)] : []), ...groups.map(({ differs }) => differs)].join('; ');
}

// each setting with both values: "its workspace is /srv/ws, this process's is /home/alice"
function differences(differing: typeof SETTINGS, there: RunPlace, here: RunPlace, mine: string): string {
  return differing.map(({ key, what }) => `its ${what} is ${shown(there[key])}, ${mine} is ${shown(here[key])}`).join('; ');
}

// how a request is decided at the gateway that filed it: at its own URL when it was recorded (a token stays good until used)
function gatewayRoutes(record: ApprovalRecord): string {
  const url = record.rule.filed_by?.url;
  return `${url ? `${url}: its console, ${url}/console/approvals/${record.id}` : 'its console'}, POST /v1/approvals/${record.id}/approve, or for a confirmation token POST /v1/confirm`;
}

// a setting as the message shows it: a path list by its paths, a ceiling as the config file writes it
function shown(value: RunPlace[keyof RunPlace] | undefined): string {
  if (value === null || value === undefined) return '(unset)';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ');
  return typeof value === 'object' ? ceilingWords(value as SandboxCeiling) : String(value);
}

/**
 * A ceiling in the words of `sandbox.ceiling` in the config (`{memory: 1GiB, network: false}`), not as it is kept
 * (`{"limits":{"memory":1073741824}}`: review userZ2, U7); a part this process does not know is shown as JSON.
 */
function ceilingWords(ceiling: SandboxCeiling): string {
  const size = (bytes: number): string => formatByteSize(bytes).replace(' ', '').replace(/bytes$/, '');
  const known = new Set(['network', 'unixSockets', 'limits', 'writableRoots', 'readableRoots']);
  const words: string[] = [];
  if (ceiling.network !== undefined) words.push(`network: ${ceiling.network}`);
  if (ceiling.unixSockets !== undefined) words.push(`unix_sockets: ${ceiling.unixSockets}`);
  const limits = ceiling.limits ?? {};
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number') continue;
    words.push(`${key}: ${key === 'memory' || key === 'file_size' ? size(value) : value}`);
  }
  if (ceiling.writableRoots) words.push(`writable_roots: [${ceiling.writableRoots.join(', ')}]`);
  if (ceiling.readableRoots) words.push(`readable_roots: [${ceiling.readableRoots.join(', ')}]`);
  for (const [key, value] of Object.entries(ceiling)) if (!known.has(key)) words.push(`${key}: ${canonicalJson(value)}`);
  return `{${words.join(', ')}}`;
}
