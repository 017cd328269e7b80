import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolCall, parseToolCalls, renderToolCall, type ToolCallSchemas } from '../../src/sessions/index.js';
import { runs } from '../helpers/property-runs.js';

const SCHEMAS: Record<string, Record<string, unknown>> = {
  read_skill: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  'shell-exec': { type: 'object', properties: { cmd: { type: 'string' }, cwd: { type: 'string' } }, required: ['cmd'], additionalProperties: false },
  'git-ops': { type: 'object', properties: { op: { type: 'string' }, limit: { type: 'integer' } }, required: [], additionalProperties: false },
};
const schemas: ToolCallSchemas = { schemaOf: (name) => SCHEMAS[name] };

describe('TOOL_CALL lines', () => {
  it.each([
    ['TOOL_CALL: read_skill|media', { ok: true, name: 'read_skill', args: { name: 'media' } }],
    ['TOOL_CALL: shell-exec|uptime', { ok: true, name: 'shell-exec', args: { cmd: 'uptime' } }],
    ['TOOL_CALL: git-ops|{"op": "log", "limit": 3}', { ok: true, name: 'git-ops', args: { op: 'log', limit: 3 } }],
    ['  TOOL_CALL:git-ops|  ', { ok: true, name: 'git-ops', args: {} }],
  ])('parses %j', (line, expected) => {
    expect(parseToolCall(line, schemas)).toEqual(expected);
  });

  it.each([
    ['TOOL_CALL: shell-exec|{"cmd": "ls", ', /^arguments are wrong \(not JSON: .*\); here is the schema: shell-exec\(cmd, cwd\?\) \{"type":"object"/],
    ['TOOL_CALL: shell-exec|{"command": "ls"}', /^arguments are wrong \(unknown parameter 'command'\); here is the schema: shell-exec\(cmd, cwd\?\)/],
    ['TOOL_CALL: shell-exec|{}', /^arguments are wrong \(missing 'cmd'\); here is the schema/],
    ['TOOL_CALL: git-ops|log', /^arguments are wrong \(a bare value only fits a tool with one parameter; write a JSON object\)/],
    ['TOOL_CALL: |x', /is not a tool name/],
    ['tool: x', /^not a tool call/],
  ])('answers %j with what is wrong and the schema', (line, message) => {
    const parsed = parseToolCall(line, schemas);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });

  it('finds every call line in a reply', () => {
    expect(parseToolCalls('thinking…\nTOOL_CALL: read_skill|media\nok\nTOOL_CALL: git-ops|', schemas).map((call) => call.ok && call.name)).toEqual(['read_skill', 'git-ops']);
  });

  it('reads back what it renders, for any arguments', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }));
    fc.assert(
      fc.property(fc.constantFrom('read_skill', 'shell-exec', 'git-ops', 'other'), fc.dictionary(fc.constantFrom('name', 'cmd', 'cwd', 'op', 'limit', 'x'), value), (name, args) => {
        const line = renderToolCall(name, args, SCHEMAS[name]);
        expect(line.includes('\n')).toBe(false);
        const written = line.slice(line.indexOf('|') + 1);
        // a bare value needs the schema to find its parameter again; JSON needs nothing
        const bare = written !== '' && !written.startsWith('{');
        expect(parseToolCall(line, bare ? schemas : undefined)).toEqual({ ok: true, name, args });
      }),
      { numRuns: runs(300) },
    );
  });

  it('never throws on hostile input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const parsed = parseToolCall(`TOOL_CALL: ${text}`, schemas);
        expect(typeof parsed.ok).toBe('boolean');
        expect(parseToolCall(text).ok === false || text.trim().startsWith('TOOL_CALL:')).toBe(true);
      }),
      { numRuns: runs(500) },
    );
  });

  it("is the package's public API: import { parseToolCall } from 'brush-holder/sessions'", async () => {
    const script = "const { parseToolCall, renderToolCall } = await import('brush-holder/sessions'); console.log(JSON.stringify(parseToolCall(renderToolCall('read_skill', { name: 'server-ops' }))));";
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(JSON.parse(stdout)).toEqual({ ok: true, name: 'read_skill', args: { name: 'server-ops' } });
  });
});
