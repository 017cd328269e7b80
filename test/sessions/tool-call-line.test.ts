import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolCall, parseToolCalls, renderToolCall, type ToolCallSchemas } from '../../src/sessions/index.js';
import { halfWidth } from '../../src/sessions/full-width.js';
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
        expect(parseToolCall(text).ok === false || /^TOOL_CALL\s*:/.test(halfWidth(text.trim()))).toBe(true);
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

// review U11-14: a model writing Chinese types `TOOL_CALL：name｜…` (full-width colon and bar, JSON with full-width punctuation)
describe('TOOL_CALL lines in full width', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const parseInNode = async (reply: string): Promise<unknown> => {
    const script = "const { parseToolCalls } = await import('brush-holder/sessions'); console.log(JSON.stringify(parseToolCalls(process.argv[1])));";
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, reply], { cwd: root });
    return JSON.parse(stdout);
  };

  it("a reply's 'TOOL_CALL：' lines are calls, read by a program importing 'brush-holder/sessions', not dropped in silence", async () => {
    const reply = ['好的，我先看看技能。', 'TOOL_CALL：read_skill｜media', 'TOOL_CALL： git-ops｜｛“op”：“log”，“limit”：3｝', 'TOOL_CALL:git-ops|{"op"："log"}', 'tool_call: git-ops|'].join('\n');
    expect(await parseInNode(reply)).toEqual([
      { ok: true, name: 'read_skill', args: { input: 'media' } },
      { ok: true, name: 'git-ops', args: { op: 'log', limit: 3 } },
      { ok: true, name: 'git-ops', args: { op: 'log' } },
      { ok: false, error: "not a tool call: the line must start with 'TOOL_CALL: name|args'" },
    ]);
  });

  it.each([
    ['TOOL_CALL：read_skill｜media', { ok: true, name: 'read_skill', args: { name: 'media' } }],
    ['ＴＯＯＬ＿ＣＡＬＬ：ｒｅａｄ＿ｓｋｉｌｌ｜ｍｅｄｉａ', { ok: true, name: 'read_skill', args: { name: 'ｍｅｄｉａ' } }],
    ['TOOL_CALL ： shell-exec｜echo a|b：c', { ok: true, name: 'shell-exec', args: { cmd: 'echo a|b：c' } }],
    ['TOOL_CALL：git-ops｜｛＂op＂：＂log＂，＂limit＂：3｝', { ok: true, name: 'git-ops', args: { op: 'log', limit: 3 } }],
    ['TOOL_CALL：shell-exec｜{"cmd"："echo 你好，世界：｛｝"}', { ok: true, name: 'shell-exec', args: { cmd: 'echo 你好，世界：｛｝' } }],
  ])('parses %j as its ASCII form', (line, expected) => {
    expect(parseToolCall(line, schemas)).toEqual(expected);
  });

  it('answers full-width JSON that is still not JSON with what is wrong and the schema', () => {
    const parsed = parseToolCall('TOOL_CALL：shell-exec｜｛“cmd”：', schemas);
    expect(parsed).toMatchObject({ ok: false, name: 'shell-exec' });
    if (!parsed.ok) expect(parsed.error).toMatch(/^arguments are wrong \(not JSON: .*\); here is the schema: shell-exec\(cmd, cwd\?\)/);
  });

  const fullWidth = (text: string): string => text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
  // JSON.stringify's output with its punctuation outside strings made full width, and each string quoted “…” where it can be
  const wideJson = (json: string): string => {
    let out = '';
    for (let index = 0; index < json.length; ) {
      if (json[index] !== '"') {
        out += ({ '{': '｛', '}': '｝', '[': '［', ']': '］', ':': '：', ',': '，' } as Record<string, string>)[json[index]!] ?? json[index];
        index += 1;
        continue;
      }
      let end = index + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const inner = json.slice(index + 1, end);
      out += /[“”]/.test(inner) ? `"${inner}"` : `“${inner}”`;
      index = end + 1;
    }
    return out;
  };
  const text = fc.string({ unit: fc.oneof(fc.constantFrom('：', '，', '｛', '｝', '“', '”', '＂', '｜', '|', '"', '\\', ' ', '\u3000', '你'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 12 });
  const value = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.dictionary(text, text, { maxKeys: 2 }));

  it('reads a call written with full-width prefix, name, bar and JSON punctuation as the same call in ASCII', () => {
    fc.assert(
      fc.property(fc.constantFrom('read_skill', 'shell-exec', 'git-ops', 'other'), fc.dictionary(fc.constantFrom('name', 'cmd', 'cwd', 'op', 'limit', 'x'), value), fc.boolean(), (name, args, wideName) => {
        const ascii = renderToolCall(name, args, SCHEMAS[name]);
        const written = ascii.slice(ascii.indexOf('|') + 1);
        const wide = `TOOL_CALL：${wideName ? fullWidth(name) : name}｜${written.startsWith('{') ? wideJson(written) : written}`;
        expect(parseToolCall(wide, schemas)).toEqual(parseToolCall(ascii, schemas));
        expect(parseToolCalls(`思考中…\n${wide}\n完成`, schemas)).toEqual([parseToolCall(ascii, schemas)]);
      }),
      { numRuns: runs(300) },
    );
  });

  it('never throws, and never drops a line starting TOOL_CALL in any width, on hostile input', () => {
    const hostile = fc.string({ unit: fc.oneof(fc.constantFrom('TOOL_CALL', 'ＴＯＯＬ＿ＣＡＬＬ', 'tool_call', ':', '：', '|', '｜', '{', '｛', '}', '｝', '“', '”', '"', '＂', '\\', '\n', '\u3000'), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })), maxLength: 40 });
    fc.assert(
      fc.property(hostile, (reply) => {
        const calls = parseToolCalls(reply, schemas);
        const meant = reply.split(/\r?\n/).filter((line) => /^TOOL_CALL/i.test(halfWidth(line.trim())));
        expect(calls).toHaveLength(meant.length);
        for (const call of calls) expect(call.ok ? typeof call.name : typeof call.error).toBe('string');
      }),
      { numRuns: runs(500) },
    );
  });
});
