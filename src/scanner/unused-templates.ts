import type { JsonSchema } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';
import { selectValues } from './template-checks.js';

/**
 * Templates of a `shell.argv` map that no call can pick (review userY, Y7): `shell.select` names a parameter whose
 * `enum` lacks the key, so the template is dead text an author may believe in force. A warning at the key.
 */
export function unusedTemplates(fields: { shell?: { argv?: unknown; select?: unknown } }, paramsSchema: JsonSchema): SchemaProblem[] {
  const { argv, select } = fields.shell ?? {};
  if (typeof select !== 'string' || typeof argv !== 'object' || argv === null || Array.isArray(argv)) return [];
  const declared = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const parameter = Object.hasOwn(declared, select) ? declared[select] : undefined;
  const values = parameter ? selectValues(parameter) : undefined;
  if (!values) return [];
  return Object.keys(argv)
    .filter((key) => !values.includes(key))
    .map((key) => ({
      path: ['shell', 'argv', key],
      atKey: true,
      message: `template 'shell.argv.${key}' is never used: 'shell.select' picks by parameter '${select}', which takes only ${values.map((value) => `'${value}'`).join(', ')}; remove the template, or add '${key}' to the enum of '${select}'`,
    }));
}
