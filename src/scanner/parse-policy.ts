import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';
import { isUnsupportedConstruct, re2Problem } from './re2-refusal.js';
import type { ApprovalRule, Diagnostic, PolicyAccessRule, PolicyDefinition } from '../core/index.js';
import { invisibleTextDiagnostics } from './invisible-text.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import { compileShapeChecker, type ShapeChecker } from './shape-checker.js';
import { definitionText, hasErrors, readYamlMapping, type ParseOptions, type Reporter } from './yaml-mapping.js';
import type { Locator, Position } from './yaml-locator.js';

/** Where the JSON Schema of `policies/<name>.hdlp` lives. */
export const POLICY_SCHEMA_URL = new URL('../../schemas/policy.schema.json', import.meta.url);

let checker: ShapeChecker | undefined;

/** Where one name a policy rule covers is written: checked against the index once every tool is known. */
export interface PolicyMember {
  name: string;
  position: Position;
}

/** A policy if its file is valid on its own (the names it covers are checked against the index later), and every problem found. */
export interface ParsedPolicy {
  policy: PolicyDefinition | null;
  diagnostics: Diagnostic[];
  namePosition?: Position;
  members?: PolicyMember[];
}

// only a request waiting for a decision has approvers, a self-approval setting, an elicitation or an expiry
const APPROVE_ONLY = ['self_approval', 'approvers', 'elicit', 'expires_in_ms'] as const;

/** Parses and validates one `policies/<name>.hdlp`, pointing each problem at its line and column. */
export function parsePolicy(file: DefinitionFile, options: ParseOptions = {}): ParsedPolicy {
  const read = definitionText(file, 'the policy', options);
  if ('diagnostic' in read) return { policy: null, diagnostics: [read.diagnostic] };
  const mapping = readYamlMapping(file, read.text, 'a policy', 'name, access, approval, author, why', options);
  if (!mapping.ok) return { policy: null, diagnostics: mapping.diagnostics };
  const { value, locator, report } = mapping;
  checker ??= compileShapeChecker(JSON.parse(readFileSync(POLICY_SCHEMA_URL, 'utf8')) as object, 'the policy', { ownSchema: true });
  for (const problem of checker(value)) report('SCHEMA_VIOLATION', problem);
  if (typeof value.name === 'string' && value.name !== file.folder) {
    report('NAME_MISMATCH', { path: ['name'], atKey: false, message: `'name' is '${value.name}' but the file is '${file.folder}.hdlp': rename one so they match` });
  }
  // a policy's reasons are shown to the people who approve calls: what its reviewer cannot see is refused, as in a tool
  const hidden = invisibleTextDiagnostics(file.path, read.text, value, locator);
  if (hasErrors(report.diagnostics) || hidden.length) return { policy: null, diagnostics: [...report.diagnostics, ...hidden] };
  const access = ((value.access ?? []) as Array<Omit<PolicyAccessRule, 'at'>>).map((rule, index) => ({ ...rule, at: at(locator, ['access', index]) }));
  const approval = ((value.approval ?? []) as Array<Omit<ApprovalRule, 'at'>>).map((rule, index) => ({
    ...rule,
    at: at(locator, ['approval', index]),
    // each condition's key, where a param no tool of the rule takes is reported once the tools are known
    ...(rule.when ? { when_at: Object.keys(rule.when).map((param) => ({ param, ...at(locator, ['approval', index, 'when', param], true) })) } : {}),
  }));
  approval.forEach((rule, index) => checkApprovalRule(rule, index, report));
  if (hasErrors(report.diagnostics)) return { policy: null, diagnostics: report.diagnostics };
  const policy: PolicyDefinition = {
    name: value.name as string,
    ...(typeof value.description === 'string' ? { description: value.description } : {}),
    access,
    approval,
    author: value.author as string,
    why: value.why as string,
    source: { path: file.path, oid: file.oid },
  };
  const members: PolicyMember[] = [];
  for (const [section, rules] of [['access', access], ['approval', approval]] as const) {
    rules.forEach((rule, index) => rule.tools.forEach((name, member) => members.push({ name, position: locator.locate([section, index, 'tools', member]) })));
  }
  return { policy, diagnostics: report.diagnostics, namePosition: locator.locate(['name']), members };
}

function at(locator: Locator, path: Array<string | number>, key = false): { line: number; column: number } {
  const { line, column } = locator.locate(path, key);
  return { line, column };
}

// what the schema cannot say: settings only an approval request has, and patterns the engines refuse
function checkApprovalRule(rule: Omit<ApprovalRule, 'at'>, index: number, report: Reporter): void {
  if (rule.decision !== 'approve') {
    for (const key of APPROVE_ONLY) {
      if (rule[key] !== undefined) report('SCHEMA_VIOLATION', { path: ['approval', index, key], atKey: true, message: `'${key}' applies only to decision approve; this rule decides ${rule.decision}` });
    }
  }
  for (const [param, condition] of Object.entries(rule.when ?? {})) {
    if (condition.regex !== undefined) {
      const reason = re2Problem(condition.regex);
      if (reason !== undefined) {
        // the look-around advice only where it applies (userU, F3): `^[^-` is merely unclosed
        const advice = isUnsupportedConstruct(reason) ? 'RE2 has no look-around and no back-references: rewrite it without them' : 'it is not a valid regular expression';
        report('UNSUPPORTED_PATTERN', { path: ['approval', index, 'when', param, 'regex'], atKey: false, message: `regex '${condition.regex}' is not linear-time RE2 syntax (${reason}); ${advice}` });
      }
    }
    for (const glob of condition.glob === undefined ? [] : Array.isArray(condition.glob) ? condition.glob : [condition.glob]) {
      try {
        // picomatch (CommonJS) at the first glob checked: a start from a warm cache parses no policy (issue #18)
        (createRequire(import.meta.url)('picomatch') as typeof Picomatch).makeRe(glob, { strictBrackets: true });
      } catch (error) {
        report('SCHEMA_VIOLATION', { path: ['approval', index, 'when', param, 'glob'], atKey: false, message: `glob '${glob}' cannot be read (${(error as Error).message})` });
      }
    }
  }
}
