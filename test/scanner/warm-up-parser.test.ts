import { describe, expect, it } from 'vitest';
import { parseToolDefinition, warmUpParserSteps } from '../../src/scanner/index.js';
import { makeToolYaml } from '../helpers/git.js';

// Issue #18: a server compiles the parser's checks once matching is ready, for a later rescan. Compiled in one piece
// they held the event loop ~130 ms of CPU as the first matches came; each check is now compiled in a step of its own.
describe('warmUpParserSteps', () => {
  it('stops between loading ajv, the TOOL.hdlp checker, the params meta-schema and a whole parse, which then checks as before', () => {
    const steps = warmUpParserSteps();
    let stops = 0;
    while (!steps.next().done) stops += 1;
    expect(stops).toBe(3);

    const parsed = parseToolDefinition({ path: 'tools/greet/TOOL.hdlp', folder: 'greet', oid: 'x', content: Buffer.from(makeToolYaml('greet')) });
    expect(parsed.diagnostics).toEqual([]);
    const wrong = parseToolDefinition({ path: 'tools/greet/TOOL.hdlp', folder: 'greet', oid: 'x', content: Buffer.from(`${makeToolYaml('greet')}\nunknown_field: 1\n`) });
    expect(wrong.diagnostics.map((diagnostic) => diagnostic.code)).toContain('SCHEMA_VIOLATION');
  });
});
