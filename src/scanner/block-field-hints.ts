import type { SchemaProblem } from './shape-checker.js';

/** The fields of each block of a definition (`shell`: argv, script, …), as its schema declares them. */
export type BlockFields = ReadonlyMap<string, readonly string[]>;

/**
 * Shape problems told in the author's terms where a YAML indentation slip caused them (review userY, Y7): a block's field
 * written at the top level (`argv:` not indented under `shell:`) is unknown there and leaves the block empty (null).
 * Each such unknown field names the block it belongs to; the empty block says why it is empty.
 */
export function withBlockFieldHints(value: Record<string, unknown>, problems: SchemaProblem[], blocks: BlockFields): SchemaProblem[] {
  const strays = new Map<string, string>();
  for (const problem of problems) {
    const field = problem.path.length === 1 && problem.atKey && problem.message.startsWith('unknown field') ? String(problem.path[0]) : undefined;
    const block = field === undefined ? undefined : blockOf(field, value, blocks);
    if (field !== undefined && block !== undefined) strays.set(field, block);
  }
  for (const parameter of strayParameters(value, problems)) strays.set(parameter, PARAMETERS);
  if (strays.size === 0) return problems;
  return problems.map((problem) => {
    const [first] = problem.path;
    if (problem.path.length === 1 && problem.atKey && strays.has(String(first))) {
      const field = String(first);
      const block = strays.get(field)!;
      const empty = value[block] === null ? ` ('${block}' is empty: nothing is indented under it)` : '';
      const what = block === PARAMETERS ? `a parameter written below '${block}', not a field of the tool` : `a field of '${block}', not of the tool`;
      return { ...problem, message: `unknown field '${field}': it is ${what}${empty}; indent '${field}' and the lines under it under '${block}:'` };
    }
    const fields = [...strays].filter(([, block]) => block === first).map(([field]) => `'${field}'`);
    if (problem.path.length === 1 && !problem.atKey && value[String(first)] === null && fields.length > 0) {
      return { ...problem, message: `'${String(first)}' is empty: ${fields.join(', ')} below it ${fields.length > 1 ? 'are' : 'is'} not indented under it, so YAML read ${fields.length > 1 ? 'them as fields' : 'it as a field'} of the tool; indent ${fields.length > 1 ? 'them' : 'it'} under '${String(first)}:'` };
    }
    return problem;
  });
}

const PARAMETERS = 'params_schema';

/**
 * The unknown top-level fields written right after an empty `params_schema:`, each a mapping: the tool's parameters,
 * not indented under it (review userZ10, U10-13), as `argv:` not indented under `shell:` is told.
 */
function strayParameters(value: Record<string, unknown>, problems: readonly SchemaProblem[]): string[] {
  if (value[PARAMETERS] !== null) return [];
  const unknown = new Set(problems.filter((problem) => problem.path.length === 1 && problem.atKey && problem.message.startsWith('unknown field')).map((problem) => String(problem.path[0])));
  const keys = Object.keys(value);
  const after: string[] = [];
  for (const key of keys.slice(keys.indexOf(PARAMETERS) + 1)) {
    const field = value[key];
    if (!unknown.has(key) || typeof field !== 'object' || field === null || Array.isArray(field)) break;
    after.push(key);
  }
  return after;
}

// the block a stray field belongs to: one written but empty, else one written, else the executor's own, else the only one
function blockOf(field: string, value: Record<string, unknown>, blocks: BlockFields): string | undefined {
  const having = [...blocks].filter(([, fields]) => fields.includes(field)).map(([block]) => block);
  const written = having.filter((block) => Object.hasOwn(value, block));
  const empty = written.filter((block) => value[block] === null);
  if (empty.length === 1) return empty[0];
  if (written.length === 1) return written[0];
  const own = having.find((block) => block === OWN_BLOCK[String(value.executor)]);
  if (own !== undefined) return own;
  return having.length === 1 ? having[0] : undefined;
}

const OWN_BLOCK: Readonly<Record<string, string>> = { shell: 'shell', gatekeeper: 'gatekeeper', 'hldp-api': 'http', 'hlpd-api': 'http', 'git-forgejo': 'forgejo', mcp: 'mcp' };
