import type { JsonSchema } from '../core/index.js';
import { asciiJson, halfWidth } from './full-width.js';
import { signature } from './signatures.js';

/** Seed 000 §12: a small model calls a tool with one line, `TOOL_CALL: name|args`, not with JSON tool calls. */
export const TOOL_CALL_PREFIX = 'TOOL_CALL:';
// the prefix as read, once the part before the first `|` or `｜` is made half-width: `TOOL_CALL：` counts (review U11-14)
const CALL = /^TOOL_CALL\s*:/;
// a line meant as a call (`tool_call name`, `TOOL_CALL name`): answered with the form, never dropped in silence
const MEANT = /^TOOL_CALL/i;

/** A parsed `TOOL_CALL` line, or why it is not one the tool can take (with the schema to fix it). */
export type ParsedToolCall = { ok: true; name: string; args: Record<string, unknown> } | { ok: false; name?: string; error: string };

/** What the parser may know about the tools: their params schemas, to place a bare argument and to check names. */
export interface ToolCallSchemas {
  schemaOf(name: string): JsonSchema | undefined;
}

/**
 * `TOOL_CALL: name|args`: the arguments as a JSON object, or, for a tool with a single parameter (or a single
 * required one), that parameter's value written bare (`TOOL_CALL: read_skill|media`); nothing after `|` is no arguments.
 */
export function renderToolCall(name: string, args: Record<string, unknown> = {}, schema?: JsonSchema): string {
  const keys = Object.keys(args);
  const bare = schema ? bareParameter(schema) : undefined;
  if (keys.length === 0) return `${TOOL_CALL_PREFIX} ${name}|`;
  const value = args[keys[0]!];
  if (keys.length === 1 && keys[0] === bare && typeof value === 'string' && value !== '' && !/[\r\n]/.test(value) && !/^[{｛]/.test(value) && value.trim() === value) {
    return `${TOOL_CALL_PREFIX} ${name}|${value}`;
  }
  return `${TOOL_CALL_PREFIX} ${name}|${JSON.stringify(args)}`;
}

/** Parses one `TOOL_CALL:` line; with `schemas`, a bare argument is given its parameter's name and unknown or missing parameters are refused with the schema. */
export function parseToolCall(line: string, schemas?: ToolCallSchemas): ParsedToolCall {
  const text = line.trim();
  // the name, the colon and the bar may come in full width (`TOOL_CALL：read_skill｜media`); the arguments are kept as written
  const bar = text.search(/[|｜]/);
  const head = halfWidth(bar < 0 ? text : text.slice(0, bar));
  const prefix = CALL.exec(head);
  if (!prefix) return { ok: false, error: `not a tool call: the line must start with '${TOOL_CALL_PREFIX} name|args'` };
  const name = head.slice(prefix[0].length).trim();
  const raw = bar < 0 ? '' : text.slice(bar + 1).trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) return { ok: false, error: `'${name}' is not a tool name: write '${TOOL_CALL_PREFIX} name|args' with the name first` };
  const schema = schemas?.schemaOf(name);
  const wrong = (why: string): ParsedToolCall => ({ ok: false, name, error: `arguments are wrong (${why}); here is the schema: ${schema ? describeSchema(name, schema) : 'a JSON object of the parameters'}` });
  let args: Record<string, unknown>;
  if (raw === '') args = {};
  else if (/^[{｛]/.test(raw)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      // JSON written with full-width punctuation (`｛“op”：“log”｝`) is read as the ASCII JSON it means
      const ascii = asciiJson(raw);
      try {
        if (ascii === raw) throw error;
        parsed = JSON.parse(ascii);
      } catch (still) {
        return wrong(`not JSON: ${(still as Error).message}`);
      }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return wrong('a JSON object was expected');
    args = parsed as Record<string, unknown>;
  } else {
    const bare = schema ? bareParameter(schema) : undefined;
    if (schema && bare === undefined) return wrong(`a bare value only fits a tool with one parameter; write a JSON object`);
    args = { [bare ?? 'input']: raw };
  }
  if (schema) {
    const properties = (schema['properties'] ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(args).filter((key) => !Object.hasOwn(properties, key));
    if (unknown.length && schema['additionalProperties'] === false) return wrong(`unknown parameter ${unknown.map((key) => `'${key}'`).join(', ')}`);
    const missing = ((schema['required'] ?? []) as string[]).filter((key) => !Object.hasOwn(args, key));
    if (missing.length) return wrong(`missing ${missing.map((key) => `'${key}'`).join(', ')}`);
  }
  return { ok: true, name, args };
}

/** Every `TOOL_CALL:` line of a model's reply (`TOOL_CALL：` too), parsed, in order; a line starting `TOOL_CALL` in another form is answered with the form it must have. */
export function parseToolCalls(text: string, schemas?: ToolCallSchemas): ParsedToolCall[] {
  return text
    .split(/\r?\n/)
    .filter((line) => MEANT.test(halfWidth(line.trim().slice(0, 9))))
    .map((line) => parseToolCall(line, schemas));
}

/** `name(a, b?) {"type":"object",…}`: the signature and the schema itself, for "here is the schema". */
export function describeSchema(name: string, schema: JsonSchema): string {
  return `${signature(name, schema)} ${JSON.stringify(schema)}`;
}

// the parameter a bare value fills: the only one, or the only required one
function bareParameter(schema: JsonSchema): string | undefined {
  const properties = Object.keys((schema['properties'] ?? {}) as Record<string, unknown>);
  if (properties.length === 1) return properties[0];
  const required = (schema['required'] ?? []) as string[];
  return required.length === 1 ? required[0] : undefined;
}
