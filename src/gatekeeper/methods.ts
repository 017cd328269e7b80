import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv/dist/2020.js';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { DeclaredSandbox, ExecutionResult } from '../core/index.js';
import { execMethod } from './exec-method.js';
import { listDirMethod, readBytesMethod, readFileMethod, writeFileMethod } from './file-methods.js';
import { MAX_READ_BYTES } from './windows.js';
import type { MethodContext } from './method-context.js';

/** One system call the gatekeeper offers: the schema of its params and what runs it. */
interface Method {
  params: Record<string, unknown>;
  run: (params: never, context: MethodContext) => Promise<ExecutionResult>;
}

const path = { type: 'string', minLength: 1 };
const encoding = { enum: ['utf8', 'base64'] };

const METHODS: Record<string, Method> = {
  exec: {
    params: { type: 'object', required: ['cmd'], additionalProperties: false, properties: { cmd: { type: 'string', minLength: 1 }, cwd: path } },
    run: execMethod,
  },
  read_file: {
    params: {
      type: 'object',
      required: ['path'],
      additionalProperties: false,
      properties: { path, encoding, offset: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1 } },
    },
    run: readFileMethod,
  },
  read_bytes: {
    params: {
      type: 'object',
      required: ['path'],
      additionalProperties: false,
      properties: { path, offset: { type: 'integer', minimum: 0 }, length: { type: 'integer', minimum: 1, maximum: MAX_READ_BYTES } },
    },
    run: readBytesMethod,
  },
  write_file: {
    params: {
      type: 'object',
      required: ['path', 'content'],
      additionalProperties: false,
      properties: { path, content: { type: 'string' }, append: { type: 'boolean' }, create_dirs: { type: 'boolean' }, encoding },
    },
    run: writeFileMethod,
  },
  list_dir: {
    params: { type: 'object', additionalProperties: false, properties: { path } },
    run: listDirMethod,
  },
};

/** The methods `POST /exec` accepts. */
export const GATEKEEPER_METHODS = Object.keys(METHODS);

/** A request to `POST /exec`, validated and with defaults filled. */
export interface ExecRequest {
  method: string;
  params: Record<string, unknown>;
  timeout_ms: number;
  max_output_bytes: number;
  /** the calling tool's declared sandbox (sizes in bytes), applied to exec */
  sandbox?: DeclaredSandbox;
}

const paths = { type: 'array', items: { type: 'string', minLength: 1 } };
const count = (maximum: number) => ({ type: 'integer', minimum: 1, maximum });

// what the gateway sends of a tool's sandbox: the TOOL.hdlp block with its sizes already in bytes
const declaredSandbox = {
  type: 'object',
  additionalProperties: false,
  properties: {
    network: { type: 'boolean' },
    filesystem: { type: 'object', additionalProperties: false, properties: { read: paths, write: paths } },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: { memory: count(Number.MAX_SAFE_INTEGER), cpu_seconds: count(86_400), processes: count(65_536), file_size: count(Number.MAX_SAFE_INTEGER) },
    },
  },
};

/** The request's validator and each method's params validator, with the instance that compiled them. */
interface Validators {
  ajv: Ajv2020;
  request: ValidateFunction<ExecRequest>;
  params: Record<string, ValidateFunction>;
}

let validators: Validators | undefined;

// compiled on the first request, not when the module loads: a server that starts with an embedded gatekeeper
// answers its first requests sooner, and most never send it one; the schemas are ours and fixed, so the meta-schema
// (compiled once per Ajv instance, the larger part of the cost) is not consulted
function compiledValidators(): Validators {
  if (validators) return validators;
  // ajv itself too (~80 CommonJS files): a server's embedded gatekeeper starts before it listens (issue #18)
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof AjvModule;
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, validateSchema: false, verbose: true });
  const request = ajv.compile<ExecRequest>({
    type: 'object',
    required: ['method'],
    additionalProperties: false,
    properties: {
      method: { type: 'string', minLength: 1 },
      params: { type: 'object', default: {} },
      timeout_ms: { type: 'integer', minimum: 1, maximum: 86_400_000, default: 30_000 },
      max_output_bytes: { type: 'integer', minimum: 64, maximum: 268_435_456, default: 65_536 },
      sandbox: declaredSandbox,
    },
  });
  const params = Object.fromEntries(Object.entries(METHODS).map(([name, method]) => [name, ajv.compile(method.params)]));
  validators = { ajv, request, params };
  return validators;
}

/** The request, or a message that says what is wrong with it and how to fix it. */
export function parseExecRequest(body: unknown): { ok: true; request: ExecRequest } | { ok: false; message: string; code: 'INVALID_REQUEST' | 'UNKNOWN_METHOD' | 'INVALID_PARAMS' } {
  const { ajv, request: validateRequest, params: validateParams } = compiledValidators();
  if (!validateRequest(body)) {
    return { ok: false, code: 'INVALID_REQUEST', message: `${problems(ajv, validateRequest.errors, 'body')}; send {method, params, timeout_ms?, max_output_bytes?, sandbox?} as application/json` };
  }
  // own properties only: 'toString' or '__proto__' are no methods
  const validate = Object.hasOwn(validateParams, body.method) ? validateParams[body.method] : undefined;
  if (!validate) return { ok: false, code: 'UNKNOWN_METHOD', message: `unknown method '${body.method}'; use one of: ${GATEKEEPER_METHODS.join(', ')}` };
  if (!validate(body.params)) return { ok: false, code: 'INVALID_PARAMS', message: `${body.method}: ${problems(ajv, validate.errors, 'params')}` };
  return { ok: true, request: body };
}

// ajv's text, but an unknown field is named with the fields allowed there, as the gateway's routes name them (review R, R12)
function problems(ajv: Ajv2020, errors: ErrorObject[] | null | undefined, root: string): string {
  return (errors ?? []).map((error) => {
    if (error.keyword !== 'additionalProperties') return ajv.errorsText([error], { dataVar: root });
    const path = [...error.instancePath.split('/').slice(1), String((error.params as { additionalProperty: unknown }).additionalProperty)].join('.');
    const allowed = Object.keys((error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
    return `unknown field '${path.slice(0, 200)}' in ${root}${allowed.length > 0 ? `; allowed: ${allowed.join(', ')}` : ''}`;
  }).join(', ');
}

/** Runs a validated request's method. */
export function runMethod(request: ExecRequest, context: MethodContext): Promise<ExecutionResult> {
  return METHODS[request.method]!.run(request.params as never, context);
}
