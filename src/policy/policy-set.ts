import { eachTool, findTool, foldedKey, formatDiagnostic, knownParamLists, type ContestedName, toolCount, toolNameAt, toolsOf, type AccessGate, type ApprovalRule, type Diagnostic, type PolicyDecisionKind, type ToolDefinition, type ToolIndex, unionOf } from '../core/index.js';
import { conditionKeyProblems, type CoveredParams } from './condition-keys.js';
import { compileCondition, modeOf, type ValueTest } from './param-conditions.js';

/** Where a rule is written: its policy, its place in the approval list, and `file:line:col`. */
export interface RuleRef {
  policy: string;
  /** `policies/ops.hdlp:12:5` */
  where: string;
}

/** An identity gate of a policy over one tool. */
export interface PolicyGate {
  gate: AccessGate;
  reason?: string;
  where: string;
}

/** An approval rule compiled once per index: its tools expanded, its conditions compiled. */
export interface CompiledRule {
  ref: RuleRef;
  decision: PolicyDecisionKind;
  reason?: string;
  callers?: AccessGate;
  conditions: Array<[param: string, test: ValueTest]>;
  /** a deny or approve rule's glob conditions, a path they cannot judge not matching: whether it matched for that alone */
  judged?: Array<[param: string, test: ValueTest]>;
  rule: ApprovalRule;
}

const sets = new WeakMap<ToolIndex, PolicySet>();

/**
 * The policies of one index, compiled once per index (a rescan builds a new one): each tool's identity gates
 * from every access rule that covers it, its approval rules in order, and principals' base lists expanded.
 * The policy version is the index's commit. `broken` holds the diagnostics of policy files that could not be
 * read, and of those whose condition names a param no tool of its rule takes (`conditions`' errors): while there are
 * any, the gateway refuses every call (a broken policy must not silently allow).
 */
export class PolicySet {
  readonly commit: string;
  readonly broken: Diagnostic[];
  /** `when` keys no tool of their rule takes: errors (in `broken`), and warnings where a tool's schema is open (UNKNOWN_PARAM) */
  readonly conditions: Diagnostic[];
  // names, aliases and groups as tool names, by folded key: made when a rule or a base list first names tools (tens of
  // milliseconds at 10,000 tools that a registry without policies never needs)
  private tables: NameTables | undefined;
  private readonly gates = new Map<string, PolicyGate[]>();
  private readonly rules: Array<{ compiled: CompiledRule; tools: ReadonlySet<string> | 'all' }> = [];
  private readonly rulesByTool = new Map<string, CompiledRule[]>();
  private readonly baseLists = new Map<string, ReadonlySet<string>>();

  /** The policy set of an index, compiled on first use. */
  static of(index: ToolIndex): PolicySet {
    let set = sets.get(index);
    if (!set) sets.set(index, (set = new PolicySet(index)));
    return set;
  }

  /** Makes `set` the policy set of `copy`, an index of the same tools and policies with other errors or warnings (compiled once, not again for it). */
  static share(copy: ToolIndex, set: PolicySet): void {
    sets.set(copy, set);
  }

  private constructor(readonly index: ToolIndex) {
    this.commit = index.commit;
    // POLICY_NOT_READ also names what is meant as policies/ but is not it (`Policies/`, a `policies` link: review Q, Q5)
    // UNKNOWN_PARAM is this set's own finding (`conditions`), which an index served keeps among its errors (withPolicyProblems)
    this.broken = index.errors.filter((diagnostic) => (diagnostic.file.startsWith('policies/') || diagnostic.code === 'POLICY_NOT_READ') && diagnostic.code !== 'UNKNOWN_PARAM');
    for (const policy of index.policies ?? []) {
      for (const rule of policy.access) {
        const where = `${policy.source.path}:${rule.at.line}:${rule.at.column}`;
        const gate: PolicyGate = { gate: { ...(rule.roles ? { roles: rule.roles } : {}), ...(rule.principals ? { principals: rule.principals } : {}) }, ...(rule.reason ? { reason: rule.reason } : {}), where };
        // a gate restricts: a contested name gates every tool it could mean
        const covered = this.expand(rule.tools, 'restricts');
        for (const name of covered === 'all' ? toolNames(index) : covered) this.gates.set(name, [...(this.gates.get(name) ?? []), gate]);
      }
      for (const rule of policy.approval) {
        const mode = modeOf(rule.decision);
        const compiled: CompiledRule = {
          ref: { policy: policy.name, where: `${policy.source.path}:${rule.at.line}:${rule.at.column}` },
          decision: rule.decision,
          ...(rule.reason ? { reason: rule.reason } : {}),
          ...(rule.callers ? { callers: rule.callers } : {}),
          conditions: Object.entries(rule.when ?? {}).map(([param, condition]) => [param, compileCondition(condition, mode)]),
          ...(mode === 'broad' && Object.values(rule.when ?? {}).some((condition) => condition.glob !== undefined) ? { judged: Object.entries(rule.when ?? {}).map(([param, condition]) => [param, compileCondition(condition, mode, false)] as [string, ValueTest]) } : {}),
          rule,
        };
        this.rules.push({ compiled, tools: this.expand(rule.tools, rule.decision === 'allow' ? 'allows' : 'restricts') });
      }
    }
    const covers = new Map(this.rules.map(({ compiled, tools }) => [compiled.rule, tools]));
    this.conditions = conditionKeyProblems(index.policies ?? [], (rule) => this.coveredBy(covers.get(rule) ?? new Set()));
    this.broken.push(...this.conditions.filter((diagnostic) => diagnostic.severity === 'error'));
  }

  // a `*` rule's tools as their params' union where the index keeps each tool's (served from the scan cache: no tool made,
  // review Z17, Z17-5); else the tools a rule covers, one at a time, a `*` rule's read only as far as the check goes
  private coveredBy(tools: ReadonlySet<string> | 'all'): Iterable<ToolDefinition> | CoveredParams {
    const lists = tools === 'all' ? knownParamLists(this.index) : undefined;
    if (!lists) return this.toolsOf(tools);
    return { tools: lists.tools.length, first: toolNameAt(toolsOf(this.index), 0) ?? '', union: unionOf(lists) };
  }

  private *toolsOf(tools: ReadonlySet<string> | 'all'): Generator<ToolDefinition> {
    if (tools === 'all') return yield* eachTool(this.index);
    for (const name of tools) {
      const tool = findTool(this.index, name);
      if (tool) yield tool;
    }
  }

  /** The first broken policy file, as `file:line:col: message`, if any. */
  get brokenReason(): string | undefined {
    const [first] = this.broken;
    if (!first) return undefined;
    const more = this.broken.length > 1 ? ` (and ${this.broken.length - 1} more problem${this.broken.length > 2 ? 's' : ''})` : '';
    return `the policy ${first.file} cannot be read (${formatDiagnostic(first)})${more}; every call is refused until it is fixed: run hldp validate on the policies/ folder, fix, and push`;
  }

  /** The policies' identity gates over a tool. */
  gatesFor(tool: ToolDefinition): readonly PolicyGate[] {
    return this.gates.get(tool.name) ?? [];
  }

  /** Whether any policy has an approval rule: without one, no tool needs asking about its rules. */
  get hasApprovalRules(): boolean {
    return this.rules.length > 0;
  }

  /** The approval rules that name a tool (by itself, an alias, its group or `*`), in order. */
  rulesFor(tool: ToolDefinition): readonly CompiledRule[] {
    let found = this.rulesByTool.get(tool.name);
    if (!found) {
      found = this.rules.filter(({ tools }) => tools === 'all' || tools.has(tool.name)).map(({ compiled }) => compiled);
      this.rulesByTool.set(tool.name, found);
    }
    return found;
  }

  /** A principal's base list as tool names, expanded once per index. */
  baseList(principal: string, names: readonly string[]): ReadonlySet<string> {
    let list = this.baseLists.get(principal);
    if (!list) {
      const expanded = this.expand(names, 'allows');
      list = expanded === 'all' ? new Set(toolNames(this.index)) : expanded;
      this.baseLists.set(principal, list);
    }
    return list;
  }

  /** The entries of a base list that name no tool, alias or group of this index (they give nothing), with the toolset one names. */
  unmatchedNames(names: readonly string[]): Array<{ name: string; toolset?: string }> {
    const tables = (this.tables ??= this.nameTables());
    const toolsets = new Map(this.index.toolsets.map((toolset) => [foldedKey(toolset.name), toolset.name]));
    return names
      .filter((name) => name !== '*' && !tables.names.has(foldedKey(name)) && !tables.groups.has(foldedKey(name)))
      .map((name) => ({ name, ...(toolsets.has(foldedKey(name)) ? { toolset: toolsets.get(foldedKey(name))! } : {}) }));
  }

  /** The entries of a list that name a contested name (a tool's, and an alias other tools were refused), with what each could mean. */
  contestedNames(names: readonly string[]): Array<{ name: string; claim: ContestedName }> {
    if (!this.index.contested) return [];
    const tables = (this.tables ??= this.nameTables());
    return names.flatMap((name) => (tables.contested.get(foldedKey(name)) ?? []).map((claim) => ({ name, claim })));
  }

  /**
   * Tool names, aliases and groups as tool names; `*` is every tool. A contested name (review Z, Z1) could mean any of
   * its tools: a list that `restricts` (deny, approve, a gate) covers them all, one that `allows` none of them. So with
   * a name that is a tool's (or an alias) and also a group: a definition's `group` is any pusher's to write, and
   * `group: Git-Ops` made a new tool one of what `principals.ci-bot.tools: [git-ops]` or an `allow` rule for git-ops
   * gives (review Z6, Z6-3): a list that allows gives the tool alone, one that restricts covers the group too. Names
   * are compared as a call's name resolves (`foldedKey`: NFKC, any case, white space, ё as е): a deny of 'подсчет слов'
   * missed the alias 'подсчёт слов' that a call of 'подсчет слов' ran (review Z21-7). A key two tools share (the scan
   * refuses such claims; fail closed all the same) restricts both and allows neither.
   */
  private expand(names: readonly string[], list: 'restricts' | 'allows'): ReadonlySet<string> | 'all' {
    if (names.includes('*')) return 'all';
    const tools = new Set<string>();
    const tables = (this.tables ??= this.nameTables());
    for (const name of names) {
      const key = foldedKey(name);
      const claims = tables.contested.get(key);
      if (claims && list === 'allows') continue;
      for (const claim of claims ?? []) for (const refused of [...claim.refused, ...(claim.twins ?? [])]) tools.add(refused);
      const named = tables.names.get(key);
      if (named && list === 'allows') {
        if (named.length === 1) tools.add(named[0]!);
        continue;
      }
      for (const tool of named ?? []) tools.add(tool);
      // groups in any letter case, as names and aliases are: `Web` and `web` name the same group (review V, V1)
      for (const member of tables.groups.get(key) ?? []) tools.add(member);
    }
    return tools;
  }

  private nameTables(): NameTables {
    const names = new Map<string, string[]>();
    const contested = new Map<string, ContestedName[]>();
    const groups = new Map<string, string[]>();
    // pushed, not copied: a copy per member is quadratic in a group's size; a tool's own keys come one after another,
    // so a tool already there is the last one
    const add = <T>(map: Map<string, T[]>, key: string, value: T): void => {
      const values = map.get(key);
      if (!values) map.set(key, [value]);
      else if (values[values.length - 1] !== value) values.push(value);
    };
    // 'подсчёт слов' and 'подсчет слов' refused to two tools are two claims with one key
    for (const claim of this.index.contested ?? []) add(contested, foldedKey(claim.name), claim);
    // one tool at a time: reading index.tools would make and keep every definition of a lazily read index
    for (const tool of eachTool(this.index)) {
      add(names, foldedKey(tool.name), tool.name);
      for (const alias of tool.aliases) add(names, foldedKey(alias), tool.name);
      if (tool.group) add(groups, foldedKey(tool.group), tool.name);
    }
    return { names, groups, contested };
  }
}

// names and aliases, groups, and contested names, each by folded key, to what they stand for
interface NameTables {
  names: Map<string, string[]>;
  groups: Map<string, string[]>;
  contested: Map<string, ContestedName[]>;
}

// the names of every tool of the index, in order, without making any tool
function toolNames(index: ToolIndex): string[] {
  const sequence = toolsOf(index);
  return Array.from({ length: toolCount(index) }, (_, position) => toolNameAt(sequence, position)!);
}
