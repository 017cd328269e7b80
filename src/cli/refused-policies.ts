import { foldedKey, type ApprovalRule, type Diagnostic, type ParamCondition, type PolicyDefinition, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { conditionKeyProblems } from '../policy/index.js';
import { unknownPolicyMember, writtenDocument, type DefinitionFile } from '../scanner/index.js';

/**
 * What a policy refused for another error names and conditions on, checked against the registry in the same run as
 * that error (review userZ10, U10-18): a misspelt `decision` hid a tool name no tool has (UNKNOWN_MEMBER), and that
 * one a `when` key no tool of its rule takes (UNKNOWN_PARAM), one per `hldp validate` run. Each rule is read as far
 * as its shape allows; a file whose YAML does not parse is left out, and what the scan already told is not told again.
 */
export function refusedPolicyProblems(files: readonly DefinitionFile[], index: ToolIndex): Diagnostic[] {
  const kept = new Set((index.policies ?? []).map((policy) => policy.source.path));
  const told = new Set(index.errors.map(place));
  const tools = index.tools as readonly ToolDefinition[];
  const groups = new Set(tools.flatMap((tool) => (tool.group ? [tool.group] : [])));
  // a tool whose own definition is broken is still a known name, as the scan has it; folded as the scan compares them
  const known = new Set(['*', ...[...tools.flatMap((tool) => [tool.name, ...tool.aliases, ...(tool.group ? [tool.group] : [])]), ...brokenToolFolders(index)].map(foldedKey)]);
  const problems: Diagnostic[] = [];
  const drafts: PolicyDefinition[] = [];
  for (const file of files) {
    if (file.kind !== 'policy' || kept.has(file.path)) continue;
    const written = writtenDocument(new TextDecoder().decode(file.content));
    if (written === undefined) continue;
    const { value, locator } = written;
    const name = typeof value.name === 'string' ? value.name : file.folder;
    const approval: ApprovalRule[] = [];
    for (const section of ['access', 'approval'] as const) {
      const rules = Array.isArray(value[section]) ? (value[section] as unknown[]) : [];
      rules.forEach((rule, index) => {
        if (!isRecord(rule) || !Array.isArray(rule.tools)) return;
        const names = rule.tools.filter((tool): tool is string => typeof tool === 'string');
        rule.tools.forEach((tool, member) => {
          if (typeof tool !== 'string' || known.has(foldedKey(tool))) return;
          const { line, column } = locator.locate([section, index, 'tools', member]);
          problems.push({ file: file.path, line, column, severity: 'error', code: 'UNKNOWN_MEMBER', message: unknownPolicyMember(name, tool, [...tools.map((known) => known.name), ...groups]) });
        });
        const when = section === 'approval' && isRecord(rule.when) ? rule.when : undefined;
        if (!when) return;
        const at = locator.locate([section, index]);
        const whenAt = Object.keys(when).map((param) => ({ param, ...locator.locate([section, index, 'when', param], true) }));
        approval.push({ tools: names, when: when as Record<string, ParamCondition>, decision: 'deny', at, when_at: whenAt });
      });
    }
    if (approval.length > 0) drafts.push({ name, access: [], approval, author: '', why: '', source: { path: file.path, oid: file.oid } });
  }
  problems.push(...conditionKeyProblems(drafts, (rule) => covered(rule.tools, tools)));
  return problems.filter((problem) => !told.has(place(problem)));
}

function place(diagnostic: Diagnostic): string {
  return `${diagnostic.file}\0${diagnostic.line}\0${diagnostic.column}\0${diagnostic.code}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// the folders of tools refused for an error of their own (tools/<folder>/TOOL.hdlp)
function brokenToolFolders(index: ToolIndex): string[] {
  return index.errors.flatMap((diagnostic) => /^tools\/([^/]+)\/TOOL\.hdlp$/.exec(diagnostic.file)?.[1] ?? []);
}

// the tools a rule's names cover: `*` every one; a name, an alias or a group its tools, folded as the gateway matches them
function covered(names: readonly string[], tools: readonly ToolDefinition[]): ToolDefinition[] {
  if (names.includes('*')) return [...tools];
  const wanted = new Set(names.map(foldedKey));
  return tools.filter((tool) => [tool.name, ...tool.aliases, ...(tool.group !== undefined ? [tool.group] : [])].some((name) => wanted.has(foldedKey(name))));
}
