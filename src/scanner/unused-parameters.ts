import { listPlaceholders, nearWord, type JsonSchema } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

interface ShellFields {
  executor?: unknown;
  shell?: { argv?: unknown; select?: unknown; env?: unknown; cwd?: unknown; script?: unknown; stdin?: unknown };
}

/**
 * Parameters of a `shell.argv` tool that nothing reads (review userZ9, U9-7): no argv template, `env` value or `cwd`
 * names it and `shell.select` does not pick by it, so a caller's value is dropped without a word while the agent sees
 * the parameter in the tool's schema and believes it applied. The reverse slip (a placeholder no parameter declares)
 * is an error already; this is a warning at the parameter. A script (which reads every parameter as a variable) and
 * `stdin: json` (which passes them all) use every parameter.
 */
export function unusedParameters(fields: ShellFields & { params_schema?: unknown }, paramsSchema: JsonSchema): SchemaProblem[] {
  const { shell } = fields;
  if (fields.executor !== 'shell' || !shell || shell.argv === undefined || shell.script !== undefined || shell.stdin !== undefined) return [];
  const declared = Object.keys((paramsSchema.properties ?? {}) as Record<string, JsonSchema>);
  if (declared.length === 0) return [];
  const used = new Set<string>();
  const read = (text: unknown): void => {
    if (typeof text === 'string') {
      for (const { name } of listPlaceholders(text)) {
        const root = name.split('.')[0]!;
        // a placeholder one letter off a parameter is told as such (UNKNOWN_PLACEHOLDER, "did you mean"): that
        // parameter is the one meant, not one nothing uses — the one slip is not told twice
        used.add(declared.includes(root) ? root : (nearWord(root, declared) ?? root));
      }
    }
    else if (Array.isArray(text)) text.forEach(read);
    else if (typeof text === 'object' && text !== null) Object.values(text).forEach(read);
  };
  read(shell.argv);
  read(shell.env);
  read(shell.cwd);
  if (typeof shell.select === 'string') used.add(shell.select);
  // where the parameter is written: the spec's shorthand names it at the top of params_schema, a full schema under properties
  const written = fields.params_schema as { type?: unknown } | undefined;
  const at = written?.type === 'object' ? ['params_schema', 'properties'] : ['params_schema'];
  return declared
    .filter((name) => !used.has(name))
    .map((name) => ({
      path: [...at, name],
      atKey: true,
      message: `parameter '${name}' is declared but no argv template, env value or cwd uses it (nor shell.select): a caller's value is ignored while the tool's schema offers it; put "{${name}}" where it belongs, or remove the parameter`,
    }));
}
