import type { ParamProblem } from './validate-params.js';

type SchemaObject = Record<string, unknown>;
const isObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `maxLength`, `maxItems` and `maxProperties` the params break, checked before ajv, which checks every keyword of
 * a value (allErrors) and so the costly ones on a value its size keyword already refuses: a 50,000-item list under
 * `maxItems: 10` had each of its items checked (review X, X2). Only the subschemas every value surely gets are
 * followed (`properties`, `items`, `prefixItems`, `additionalProperties` from the root, no combinator or reference),
 * so each problem found is one ajv would report too; the walk visits each value of the params at most once.
 */
export function sizeProblems(schema: unknown, params: unknown): ParamProblem[] {
  const problems: ParamProblem[] = [];
  const stack: Array<{ schema: unknown; value: unknown; path: string[] }> = [{ schema, value: params, path: [] }];
  while (stack.length > 0) {
    const { schema: sub, value, path } = stack.pop()!;
    if (!isObject(sub)) continue;
    const problem = sizeProblem(sub, value);
    if (problem !== undefined) {
      problems.push({ param: path.join('.'), message: problem });
      continue;
    }
    if (Array.isArray(value)) {
      const prefix = Array.isArray(sub['prefixItems']) ? sub['prefixItems'] : [];
      value.forEach((item, index) => {
        const itemSchema = index < prefix.length ? prefix[index] : sub['items'];
        if (itemSchema !== undefined) stack.push({ schema: itemSchema, value: item, path: [...path, String(index)] });
      });
    } else if (isObject(value)) {
      const properties = isObject(sub['properties']) ? sub['properties'] : {};
      // another property is `additionalProperties`' only when no `patternProperties` may take it
      const additional = sub['patternProperties'] === undefined ? sub['additionalProperties'] : undefined;
      for (const [name, item] of Object.entries(value)) {
        const itemSchema = Object.hasOwn(properties, name) ? properties[name] : additional;
        if (itemSchema !== undefined) stack.push({ schema: itemSchema, value: item, path: [...path, name] });
      }
    }
  }
  return problems;
}

// ajv's words for the same failures
function sizeProblem(schema: SchemaObject, value: unknown): string | undefined {
  const most = (key: string): number => (typeof schema[key] === 'number' ? schema[key] : Infinity);
  if (typeof value === 'string' && value.length > most('maxLength') && [...value].length > most('maxLength')) {
    return `must NOT have more than ${most('maxLength')} characters`;
  }
  if (Array.isArray(value) && value.length > most('maxItems')) return `must NOT have more than ${most('maxItems')} items`;
  if (isObject(value) && Object.keys(value).length > most('maxProperties')) return `must NOT have more than ${most('maxProperties')} properties`;
  return undefined;
}
