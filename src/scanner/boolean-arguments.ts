import { scriptVariableName, wholePlaceholder, type JsonSchema } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

const isBoolean = (schema: JsonSchema | undefined): boolean =>
  schema !== undefined && (schema.type === 'boolean' || (Array.isArray(schema.type) && schema.type.includes('boolean')));

/**
 * A boolean parameter standing as a whole `shell.argv` element (review userZ3, MEDIUM 3): its value becomes the text
 * `true` or `false`, so `[wc, ["-l", "{lines_only}"]]` runs `wc -l true` and `wc -l false` (an optional group is
 * dropped only when the parameter is missing, never when it is false). A warning at the element: a program taking the
 * words true/false (`git config core.bare {bare}`) is right as written.
 */
export function booleanArguments(fields: { shell?: { argv?: unknown } }, paramsSchema: JsonSchema): SchemaProblem[] {
  const declared = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const argv = fields.shell?.argv;
  const templates: Array<[unknown[], string[]]> = Array.isArray(argv)
    ? [[argv, []]]
    : argv && typeof argv === 'object'
      ? Object.entries(argv).flatMap(([key, list]): Array<[unknown[], string[]]> => (Array.isArray(list) ? [[list, [key]]] : []))
      : [];
  const problems: SchemaProblem[] = [];
  const check = (text: unknown, path: Array<string | number>, inGroup: boolean): void => {
    if (typeof text !== 'string') return;
    const name = wholePlaceholder(text);
    if (name === undefined || !Object.hasOwn(declared, name) || !isBoolean(declared[name])) return;
    const group = inGroup ? ' (an optional group is dropped only when the parameter is missing, not when it is false)' : '';
    problems.push({
      path,
      atKey: false,
      message:
        `boolean parameter '${name}' is a whole argument: its value becomes the text 'true' or 'false'${group}; ` +
        `for an on/off flag, pick a template by it: 'shell.select: ${name}' with 'shell.argv: {"true": [… the flag …], "false": [… without it …]}', ` +
        `or read "$${scriptVariableName(name)}" in a 'shell.script'; if the program takes the words true/false, this is right as written`,
    });
  };
  for (const [list, prefix] of templates) {
    list.forEach((item, index) => {
      if (index === 0) return;
      if (Array.isArray(item)) item.forEach((inner, innerIndex) => check(inner, ['shell', 'argv', ...prefix, index, innerIndex], true));
      else check(item, ['shell', 'argv', ...prefix, index], false);
    });
  }
  return problems;
}
