import type { ApprovalRecord, RunPlace } from '../store/index.js';

// each setting a place holds, with the words an operator sets it by
const SETTINGS: ReadonlyArray<{ key: keyof RunPlace; what: string; set: string }> = [
  { key: 'workspace', what: 'workspace', set: 'HLDP_WORKSPACE' },
  { key: 'sandbox', what: 'sandbox mode', set: 'HLDP_SANDBOX' },
  { key: 'run_as', what: 'sandbox.run_as', set: 'HLDP_SANDBOX_RUN_AS' },
];

/**
 * Why this process may not run an approved request's call (undefined: it may): the request was filed by a process
 * that runs calls elsewhere — another workspace, another sandbox — and the approver's process would run the agent's
 * call against its own (`hldp approvals approve` from a person's home folder ran it there, read and wrote their files:
 * review userY, Y8). Asked of one-shot CLI processes only: serving instances of one deployment run each other's
 * approved requests (the run lease lets any of them pick a run up), as they did. A request stored before its place
 * was kept cannot be placed: the CLI leaves it to a gateway, and says so.
 */
export function placeProblem(record: ApprovalRecord, here: RunPlace): string | undefined {
  const decideThere = `decide it at the gateway that filed it (its console, POST /v1/approvals/${record.id}/approve, or for a confirmation token POST /v1/confirm)`;
  const there = record.rule.place;
  if (there === undefined) {
    return `request '${record.id}' was filed before requests recorded where their call runs (the gateway's workspace and sandbox), so this process cannot tell whether its own (workspace ${here.workspace}) is that one; nothing was decided, it stays pending (until ${record.expires_at}): ${decideThere}`;
  }
  const differing = SETTINGS.filter(({ key }) => there[key] !== here[key]);
  if (differing.length === 0) return undefined;
  const shown = (value: string | null): string => (value === null ? '(unset)' : value);
  const what = differing.map(({ key, what }) => `its ${what} is ${shown(there[key])}, this process's is ${shown(here[key])}`).join('; ');
  const settings = differing.map(({ key, set }) => (there[key] === null ? `${set} unset` : `${set}=${there[key]}`)).join(', ');
  return (
    `request '${record.id}' was filed by a gateway that runs calls elsewhere than this process would: ${what}. Nothing ran and nothing was decided; it stays pending (until ${record.expires_at}): ` +
    `${decideThere}, or run this command with that gateway's settings (its --config, or ${settings})`
  );
}
