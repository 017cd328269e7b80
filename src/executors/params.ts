import type { JsonSchema } from '../core/index.js';

/** The parameters of a call, as the agent sent them. */
export type Params = Record<string, unknown>;

/** A parameter's value if the call gave it (own properties only: `constructor` or `toString` are not parameters). */
export function ownValue(params: Params, name: string): unknown {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

/** The params with each missing property filled from its `default` in the schema (the params are not changed). */
export function withDefaults(schema: JsonSchema, params: Params): Params {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return { ...params };
  const filled: Params = { ...params };
  for (const [name, property] of Object.entries(properties as Record<string, JsonSchema>)) {
    if (ownValue(filled, name) === undefined && property !== null && typeof property === 'object' && 'default' in property) {
      filled[name] = property.default;
    }
  }
  return filled;
}

/** Whether a parameter counts as given: not missing, not null, not an empty list. */
export function hasValue(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

/** A parameter value as the text of one argument or variable: strings as they are, the rest as JSON. */
export function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
