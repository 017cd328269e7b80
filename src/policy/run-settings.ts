import type { RunPlace } from '../store/index.js';

/** One group of `runs_with` that differs: how a message names it, and what an instance must have the same of. */
export interface SettingGroup {
  /** "the environment shell tools inherit (HOME, API_KEY) differs" */
  differs: string;
  /** "environment shell tools inherit", "apis target 'billing'" */
  same: string;
}

const KINDS: Record<string, string> = { apis: 'apis target', gatekeepers: 'gatekeepers target', mcp_servers: 'mcpServers server' };

/**
 * The groups of what a call runs with (`runs_with`: inherited environment, targets and their credentials, output
 * ceiling) in which two places differ, named without their values: the digests tell only that they differ. A group
 * one place has and the other lacks differs too. Nothing, for a request filed before `runs_with` was kept.
 */
export function differingGroups(there: RunPlace, here: RunPlace): SettingGroup[] {
  const theirs = there.runs_with;
  if (theirs === undefined) return [];
  const mine = here.runs_with ?? {};
  const keys = [...new Set([...Object.keys(theirs), ...Object.keys(mine)])].filter((key) => theirs[key] !== mine[key]).sort();
  const groups: SettingGroup[] = [];
  const variables = keys.filter((key) => key.startsWith('env:')).map((key) => key.slice('env:'.length));
  if (variables.length > 0) groups.push({ differs: `the environment shell tools inherit (${variables.join(', ')}) differs`, same: 'environment shell tools inherit' });
  for (const key of keys) {
    if (key.startsWith('env:')) continue;
    const colon = key.indexOf(':');
    const kind = colon < 0 ? undefined : KINDS[key.slice(0, colon)];
    const what = kind === undefined ? (key === 'max_output_bytes' ? 'output ceiling (max_output_bytes)' : key === 'forgejo' ? 'forgejo target (url, token)' : key.replace(/_/g, ' ')) : `${kind} '${key.slice(colon + 1)}'`;
    groups.push({ differs: `the ${what} differs`, same: what });
  }
  return groups;
}
