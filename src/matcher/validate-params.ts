import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { didYouMean, paramsCompileCost, paramsSchemaCost, type ToolDefinition, type ToolSequence } from '../core/index.js';
import { compactSchema } from './compact-schema.js';
import { errorHooks, meteredErrors } from './error-work.js';
import { linearRegExp, programSizeOf } from './linear-regexp.js';
import { MAX_PARAMS_WORK, metered, ParamsTooCostly } from './params-work.js';
import { meteredSchema, patternKeyword, workKeyword } from './metered-schema.js';
import { sizeProblems } from './size-first.js';
import { uniqueItemsKeyword } from './unique-items.js';
import { unusableSchema, type UnusableSchema } from './unusable-schema.js';

/** One parameter that does not satisfy the schema, and what was expected of it. */
export interface ParamProblem {
  /** the parameter's name (a dotted path for nested values; empty for the params object itself) */
  param: string;
  message: string;
}

/** Params checked against a tool's schema: the data with defaults filled in, or every problem found. */
export type ParamsValidation =
  | { valid: true; data: Record<string, unknown> }
  | { valid: false; errorMessage: string; problems: ParamProblem[]; schema: string };

/** Validates params against tools' schemas, compiling each schema on its first use only. */
export interface ParamsValidator {
  validate(tool: ToolDefinition, params: unknown): ParamsValidation;
  /** why the tool's schema cannot be compiled (every call of it is refused so), or undefined when it can */
  unusable(tool: ToolDefinition): UnusableSchema | undefined;
  /** a validator for another index version: the schemas compiled for the tools it keeps carry over */
  next(tools: ToolSequence): ParamsValidator;
}

// ajv-formats ships CommonJS whose default export arrives wrapped under NodeNext
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** A validator for one index: schemas compile lazily, so a 10,000-tool index costs nothing until used; `workLimit` bounds each call's check (MAX_PARAMS_WORK). */
export function createParamsValidator(workLimit = MAX_PARAMS_WORK): ParamsValidator {
  // ajv is made here, with the matcher, so before a server listens: its first request by name validates params, and
  // made at first use its load (~80 files) landed on that request instead, ~1 s later at load 20 (issue #18)
  // a schema's $id is not registered: two tools (or two versions of one) may well use the same one
  // patterns run on RE2: a catastrophic pattern in a definition cannot stall the process
  // no meta-schema check: every params schema comes from the scanner, which checked it against JSON Schema 2020-12's
  // (normaliseParamsSchema) and refused the definition otherwise; checking again compiled that meta-schema at a server's
  // first call by name, ~0.1-0.25 s of the main thread that a 100,000-tool start's search index waited behind (issue
  // #18). A schema ajv still cannot compile (an unresolvable $ref, a keyword's value of the wrong type) is answered below
  // logger: false: ajv's own console warnings ("unknown format … ignored") reached the CLI's stderr and, raw, serve's
  // JSON log (review userY, Y6); `hldp validate` reports an unknown format at its line instead
  const ajv = new Ajv2020({ logger: false, allErrors: true, useDefaults: true, coerceTypes: false, strict: false, addUsedSchema: false, validateSchema: false, code: { regExp: linearRegExp, optimize: false, process: meteredErrors } });
  // each error the validator makes is charged, and lists of errors are appended, not copied (error-work.ts)
  Object.assign(ajv, errorHooks);
  addFormats(ajv);
  // ajv's uniqueItems compares every pair of items that may be objects or arrays: n^2/2 on the event loop (review V, V4)
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  // every run of a pattern and each subschema applied to a value is charged to one budget per call (review X, X1, X2)
  ajv.removeKeyword('pattern');
  ajv.addKeyword(patternKeyword);
  ajv.addKeyword(workKeyword);
  return validatorOver(ajv, new Map(), workLimit);
}

// Versions of an index share one ajv. A tool is known by its definition object, which the scanner
// keeps for a tool whose folder did not change; ajv forgets the schemas of the tools a version
// drops (a validator still serving a call keeps its compiled function).
function validatorOver(ajv: Ajv2020, compiled: Map<ToolDefinition, ValidateFunction | UnusableSchema>, workLimit: number): ParamsValidator {
  const checkOf = (tool: ToolDefinition): ValidateFunction | UnusableSchema => {
    let check = compiled.get(tool);
    if (check === undefined) {
      check = compileSchema(ajv, tool);
      compiled.set(tool, check);
    }
    return check;
  };
  return {
    validate(tool, params) {
      const check = checkOf(tool);
      if (typeof check !== 'function') {
        return { valid: false, errorMessage: check.message, problems: [{ param: '', message: check.message }], schema: compactSchema(tool.params_schema) };
      }
      return validateWith(check, tool, params, workLimit);
    },
    unusable(tool) {
      const check = checkOf(tool);
      return typeof check === 'function' ? undefined : check;
    },
    next(tools) {
      // looked up in the few compiled, not a set of every tool made (tens of milliseconds at 100,000 tools)
      const carried = new Map<ToolDefinition, ValidateFunction | UnusableSchema>();
      if (compiled.size > 0) {
        for (let position = 0; position < tools.length; position++) {
          const tool = tools.at(position)!;
          const check = compiled.get(tool);
          if (check !== undefined) carried.set(tool, check);
        }
      }
      // ajv keys what it compiled by the metered copy of the schema, which the validator keeps as its `schema`
      for (const [tool, check] of compiled) if (!carried.has(tool)) ajv.removeSchema(typeof check !== 'function' ? tool.params_schema : (check.schema as object));
      return validatorOver(ajv, carried, workLimit);
    },
  };
}

// the tool's validator, or why its schema cannot be used: the answer to every call of it, kept as a compiled one is
function compileSchema(ajv: Ajv2020, tool: ToolDefinition): ValidateFunction | UnusableSchema {
  // the scanner refuses such a schema (COSTLY_PARAMS_SCHEMA); a definition that reached the validator otherwise must
  // not make ajv's work multiply with each level of the params on the event loop either
  const cost = paramsSchemaCost(tool.params_schema, { matches: (pattern, name) => linearRegExp(pattern, 'u').test(name) }).problem;
  if (cost !== undefined) return unusableSchema(tool.name, cost.message);
  // nor hold the event loop for long while ajv compiles it (the same count: what the scanner passed, this passes)
  const compile = paramsCompileCost(tool.params_schema, { programSize: programSizeOf }).problem;
  if (compile !== undefined) return unusableSchema(tool.name, compile.message);
  try {
    return ajv.compile(meteredSchema(tool.params_schema));
  } catch (error) {
    // a schema ajv refuses (an unresolvable $ref) is the definition's fault: a clear answer, never a crash
    return unusableSchema(tool.name, error as Error);
  }
}

function validateWith(check: ValidateFunction, tool: ToolDefinition, params: unknown, workLimit: number): ParamsValidation {
  // defaults are filled into a copy: the caller's object stays as it was sent
  const data = params === undefined ? {} : structuredClone(params);
  // a size keyword that fails is the answer at once: ajv would check every other keyword of that value too
  const tooLarge = sizeProblems(tool.params_schema, data);
  if (tooLarge.length > 0) return invalid(tool, tooLarge);
  let passed: boolean;
  try {
    passed = metered(() => check(data) as boolean, workLimit);
  } catch (error) {
    if (error instanceof ParamsTooCostly) return invalid(tool, [{ param: error.param, message: error.message }]);
    // ajv's compiled code throws on some schemas and params (found by ref12: a patternProperties key reached through
    // oneOf into `additionalProperties: false` — "Cannot set properties of undefined"): the definition's fault, said so
    const message = `the params schema of '${tool.name}' cannot check these params (its validator failed: ${(error as Error).message}); fix its TOOL.hdlp`;
    return { valid: false, errorMessage: message, problems: [{ param: '', message }], schema: compactSchema(tool.params_schema) };
  }
  if (passed) return { valid: true, data: data as Record<string, unknown> };
  return invalid(tool, describeErrors(check.errors ?? [], Object.keys((tool.params_schema.properties ?? {}) as object)));
}

function invalid(tool: ToolDefinition, problems: ParamProblem[]): ParamsValidation {
  const schema = compactSchema(tool.params_schema);
  const errorMessage =
    `invalid params for '${tool.name}': ${problems.map(formatProblem).join('; ')}. ` + `Expected params: ${schema}`;
  return { valid: false, errorMessage, problems, schema };
}

function formatProblem(problem: ParamProblem): string {
  return problem.param === '' ? problem.message : `'${problem.param}' ${problem.message}`;
}

// the problems an answer lists: a call may fail hundreds of thousands of checks within its budget, and listing each
// made an answer (and its receipt) of tens of megabytes
const LISTED_PROBLEMS = 100;

function describeErrors(errors: ErrorObject[], declared: readonly string[]): ParamProblem[] {
  const problems: ParamProblem[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < errors.length; index++) {
    const problem = describeError(errors[index]!, declared);
    const key = `${problem.param}\n${problem.message}`;
    if (seen.has(key)) continue;
    if (problems.length === LISTED_PROBLEMS) {
      problems.push({ param: '', message: `and more: ${(errors.length - index).toLocaleString('en-US')} failed checks not listed` });
      break;
    }
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

// `declared`: the tool's own parameters, which a name one letter off is told it likely meant (review userZ9, U9-10)
function describeError(error: ErrorObject, declared: readonly string[]): ParamProblem {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const at = (name: string): string => [...path, name].join('.');
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { param: at(String(params['missingProperty'])), message: 'is required but missing' };
    case 'additionalProperties': {
      const near = path.length === 0 ? didYouMean(String(params['additionalProperty']), declared) : '';
      return { param: at(String(params['additionalProperty'])), message: `is not a parameter of this tool${near}` };
    }
    case 'enum':
      return { param: path.join('.'), message: `must be one of ${formatValues(params['allowedValues'])}` };
    case 'type':
      return { param: path.join('.'), message: `must be ${String(params['type'])}` };
    default:
      return { param: path.join('.'), message: error.message ?? `fails '${error.keyword}'` };
  }
}

function formatValues(values: unknown): string {
  return Array.isArray(values) ? values.map((value) => JSON.stringify(value)).join(', ') : String(values);
}
