import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../core/index.js';
import type { ApprovalRecord, JudgedAgainst } from '../store/index.js';

/** The registry as a request's binding reads it: its commit and its policy files (path and git object id). */
export interface JudgedIndex {
  commit: string;
  policies?: readonly { source: { path: string; oid: string } }[];
}

/** What a policy decision was made against: the tool's definition and every policy file, by their git object ids. */
export function judgedAgainst(index: JudgedIndex, tool: ToolDefinition): JudgedAgainst {
  return { tool: tool.source.oid, policies: policiesDigest(index) };
}

/** One id for the policy files as they are: any file added, removed, renamed or edited changes it. */
function policiesDigest(index: JudgedIndex): string {
  const files = (index.policies ?? []).map((policy) => `${policy.source.path}\0${policy.source.oid}`).sort();
  return createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16);
}

/**
 * What changed, of what a request was judged against, between its making and now (undefined: nothing, and it may
 * still be decided). A commit that leaves the tool's definition and the policies alone (a README, another tool) does
 * not outdate it (review userX, X3); a request stored before this binding existed falls back to its commit.
 */
export function changedSince(record: ApprovalRecord, index: JudgedIndex, tool: ToolDefinition | undefined): string | undefined {
  if (!tool) return `'${record.tool}' is no longer in the registry (it was at commit ${record.commit}; the registry is now at ${index.commit})`;
  const judged = record.rule.judged;
  if (!judged) return index.commit === record.commit ? undefined : `the registry moved from commit ${record.commit} to ${index.commit}`;
  const now = judgedAgainst(index, tool);
  const changed = [
    ...(now.tool !== judged.tool ? [`the definition of '${record.tool}' (${tool.source.path}) changed`] : []),
    ...(now.policies !== judged.policies ? ['the policies (policies/) changed'] : []),
  ];
  return changed.length ? `${changed.join(' and ')} between commit ${record.commit}, where the request was made, and ${index.commit}` : undefined;
}
