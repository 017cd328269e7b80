import { formatNames } from 'ajv-formats/dist/formats.js';

/** Why a tool's params schema cannot be compiled: the answer to each of its calls, and to `hldp validate`. */
export interface UnusableSchema {
  /** the whole answer to a call: names the tool and says to fix its TOOL.hdlp */
  message: string;
  /** the cause in plain words, without the tool's name */
  reason: string;
  /** the `$ref` (as written) that resolves to nothing, when that is the cause */
  ref?: string;
}

/** Every `format` the gateway's params validator checks (ajv-formats' full set): any other is checked by nothing. */
export const PARAMS_FORMATS: readonly string[] = Object.freeze([...formatNames]);

/** The cost problem or ajv's compile error of a tool's schema, said so its author knows what to change. */
export function unusableSchema(tool: string, cause: string | Error): UnusableSchema {
  const written = typeof cause === 'string' ? undefined : unresolvedRef(cause);
  const reason = written === undefined ? (typeof cause === 'string' ? cause : cause.message) : refReason(written);
  return { message: `the params schema of '${tool}' cannot be used (${reason}); fix its TOOL.hdlp`, reason, ...(written === undefined ? {} : { ref: written }) };
}

// ajv's MissingRefError: its message holds the reference as written (`missingRef` is resolved against any $id)
function unresolvedRef(error: Error): string | undefined {
  if (!('missingRef' in error)) return undefined;
  return /^can't resolve reference (.+) from id .*$/s.exec(error.message)?.[1];
}

function refReason(ref: string): string {
  const definitions = /^#\/(\$defs|definitions)\/[^/]+$/.exec(ref);
  if (definitions) return `'${ref}' resolves to nothing: add it under params_schema.${definitions[1]}`;
  if (ref.startsWith('#/') || ref === '#') return `'${ref}' resolves to nothing: a '#/…' reference names a place inside params_schema, and there is none at that path`;
  if (ref.startsWith('#')) return `'${ref}' resolves to nothing: no subschema of params_schema declares $anchor: ${ref.slice(1)}`;
  return `'${ref}' resolves to nothing: the gateway fetches no other schema, so a $ref must point inside params_schema (such as '#/$defs/NAME')`;
}
