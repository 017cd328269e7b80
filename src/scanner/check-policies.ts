import { contestedMessage, foldedKey, type ContestedName, type Diagnostic, type PolicyDefinition } from '../core/index.js';
import type { OtherEntry, ToolStub } from './build-index.js';
import { nearest } from './check-members.js';
import type { Position } from './yaml-locator.js';

type Duplicate = (file: string, position: Position | undefined, taken: string) => Diagnostic;

/**
 * Keeps the policies whose every rule names tools, aliases or groups the repository has (`*` covers all), in
 * path order. A name no tool answers to is an error at that name, with the nearest names, and the policy is left
 * out: a rule that silently matched nothing could let through what it was written to stop, so the gateway reads
 * a policy left out as broken and refuses calls until it is fixed. A tool whose own definition is broken is
 * still a known name (`folders`), so one broken tool does not break every policy that mentions it. Names are
 * compared as a call's name resolves and as the gateway's policy set matches them (`foldedKey`: NFKC, any letter
 * case, white space, ё as е): 'подсчет слов' names the tool whose alias is 'подсчёт слов' (review Z21-7).
 */
export function checkPolicies(
  tools: readonly ToolStub[],
  folders: readonly string[],
  entries: readonly OtherEntry[],
  errors: Diagnostic[],
  duplicate: Duplicate,
  contested: ReadonlyMap<string, ContestedName> = new Map(),
  warnings: Diagnostic[] = [],
): PolicyDefinition[] {
  // nothing to check: the table of every tool's names is not built (tens of milliseconds at 10,000 tools)
  if (!entries.some((entry) => entry.kind === 'policy')) return [];
  const known = new Set<string>(['*', ...folders.map(foldedKey)]);
  const groups = new Set<string>();
  for (const tool of tools) {
    known.add(foldedKey(tool.name));
    for (const alias of tool.aliases) known.add(foldedKey(alias));
    if (tool.group) groups.add(foldedKey(tool.group));
  }
  // contested names by folded key: two refused spellings of one alias are both what an entry names
  const claims = new Map<string, ContestedName[]>();
  for (const claim of contested.values()) claims.set(foldedKey(claim.name), [...(claims.get(foldedKey(claim.name)) ?? []), claim]);
  const kept = new Map<string, PolicyDefinition>();
  for (const entry of entries) {
    if (entry.kind !== 'policy' || !entry.policy) continue;
    const policy = entry.policy;
    const first = kept.get(policy.name.toLowerCase());
    if (first) {
      errors.push(duplicate(policy.source.path, entry.name_position, `policy name '${policy.name}' is already taken by ${first.source.path}`));
      continue;
    }
    const unknown = (entry.members ?? []).filter((member) => !known.has(foldedKey(member.name)) && !groups.has(foldedKey(member.name)));
    for (const { name, position } of unknown) {
      errors.push({
        file: policy.source.path, line: position.line, column: position.column, severity: 'error', code: 'UNKNOWN_MEMBER',
        message: unknownPolicyMember(policy.name, name, [...tools.map((tool) => tool.name), ...groups]),
      });
    }
    if (unknown.length === 0) kept.set(policy.name.toLowerCase(), policy);
    if (contested.size === 0) continue;
    for (const { name, position } of entry.members ?? []) {
      for (const claim of claims.get(foldedKey(name)) ?? []) warnings.push({ file: policy.source.path, line: position.line, column: position.column, severity: 'warning', code: 'CONTESTED_NAME', message: contestedMessage(`policy '${policy.name}'`, name, claim) });
    }
  }
  return [...kept.values()].sort((a, b) => (a.source.path < b.source.path ? -1 : a.source.path > b.source.path ? 1 : 0));
}

/** What a policy naming `name`, which is neither a tool nor a group, is told, with the nearest of `candidates`. */
export function unknownPolicyMember(policy: string, name: string, candidates: readonly string[]): string {
  const near = nearest(name, candidates);
  return `policy '${policy}' names '${name}', which is neither a tool nor a group of this registry${near.length ? `; did you mean ${near.map((candidate) => `'${candidate}'`).join(', ')}?` : ''} (a rule that matched nothing would not stop what it was written to stop, so the policy is refused whole)`;
}
