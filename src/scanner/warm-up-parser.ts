import { parseEntry } from './build-index.js';
import { ajv2020 } from './ajv-module.js';
import { normaliseParamsSchema } from './params-schema.js';
import { checkToolShape } from './tool-schema.js';

// every part of a definition the checks compile on first use: the shape schema, a params schema with a
// pattern (RE2), an enum and a default, an argv template, constraints
const SAMPLE = `name: warm-up
display: warm-up
intent: compiles the definition checks before a server answers
method: run
executor: shell
shell: { argv: [echo, "{text}", ["--mode", "{mode}"]] }
params_schema:
  text: { type: string, required: true, pattern: "^[a-z]+$", description: text }
  mode: { type: string, enum: [fast, full], default: fast, description: mode }
constraints: { timeout_ms: 1000, max_output_bytes: 1024, require_confirm: false }
author: HLDP
created: 2026-01-01
why: a server's first rescan would otherwise compile these checks while requests wait
`;

/**
 * Parses one representative definition, so that what parsing compiles on first use (the TOOL.hdlp schema,
 * ajv and RE2 for params schemas: ~130 ms of CPU) is compiled before a server's first rescan, not in it (a cold scan
 * served from the cache parses nothing, which leaves the checks uncompiled). A step at a time: loading ajv, the
 * TOOL.hdlp schema's checker and the params schemas' meta-schema are each compiled in a step of their own before the
 * whole definition is parsed, so a request that comes meanwhile waits for one of them, not for all (issue #18).
 */
export function* warmUpParserSteps(): Generator<void, void, void> {
  ajv2020();
  yield;
  checkToolShape({});
  yield;
  normaliseParamsSchema({ text: { type: 'string', pattern: '^[a-z]+$' } });
  yield;
  parseEntry({ path: 'tools/warm-up/TOOL.hdlp', folder: 'warm-up', oid: 'warm-up', content: Buffer.from(SAMPLE) });
}
