import type { JsonSchema } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

/**
 * A full object schema whose `required` names a parameter that `additionalProperties: false` forbids (not in
 * `properties`, and no `patternProperties` to admit it): no call can ever pass — without it, it is missing; with it, it
 * is "not a parameter of this tool" (review userW, W1b). The shorthand makes `required` from its own properties.
 */
export function checkRequiredDeclared(schema: JsonSchema): SchemaProblem[] {
  if (schema.additionalProperties !== false || schema.patternProperties !== undefined || !Array.isArray(schema.required)) return [];
  const properties = typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};
  const problems: SchemaProblem[] = [];
  schema.required.forEach((name, index) => {
    if (typeof name !== 'string' || Object.hasOwn(properties, name)) return;
    problems.push({ path: ['params_schema', 'required', index], atKey: false, message: `'${name}' is required, but it is not in 'properties' and additionalProperties is false, so no call can ever pass: declare it under properties, or remove it from required` });
  });
  return problems;
}
