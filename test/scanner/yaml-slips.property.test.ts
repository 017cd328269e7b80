import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { runs } from '../helpers/property-runs.js';

// Review userZ7, F2: a ' #' inside a one-line flow list starts a YAML comment that takes the closing bracket with it,
// and `yaml` said "must be sufficiently indented and end with a ]" at a line past the file's end; a ': ' in a plain
// value was "Nested mappings are not allowed in compact mappings". Now each is told where it is, saying to quote.

const PATH = 'tools/demo/TOOL.hdlp';
const HEAD = 'name: demo\ndisplay: Demo\nintent: does demo things\nmethod: run\nexecutor: shell\n';
const TAIL = 'params_schema: {}\nshell:\n  argv: [echo, hi]\nauthor: TEST-001\ncreated: 2026-05-31\nwhy: tests need it\n';
const parse = (text: string) => parseToolDefinition({ path: PATH, folder: 'demo', oid: 'oid', content: Buffer.from(text, 'utf8') });

// words YAML reads as text (not true, false, null)
const word = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/).filter((text) => !['true', 'false', 'null'].includes(text));
const item = fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));

describe("a ' #' inside a flow list (property-based)", () => {
  it('is told at the #, naming the item, whatever the items around it', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 4 }), item, word, fc.array(item, { maxLength: 4 }), (before, start, tag, after) => {
        const hashed = `${start} #${tag}`;
        const line = `examples: [${[...before, hashed, ...after].join(', ')}]`;
        const parsed = parse(`${HEAD}${line}\n${TAIL}`);
        expect(parsed.tool).toBeNull();
        const told = parsed.diagnostics.filter((diagnostic) => diagnostic.message.startsWith("' #' inside [ … ]"));
        expect(told).toHaveLength(1);
        expect(told[0]).toMatchObject({ line: 6, column: line.indexOf(' #') + 2, code: 'YAML_SYNTAX' });
        expect(told[0]!.message).toContain(`("${hashed.length > 40 ? `${hashed.slice(0, 40)}…` : hashed}")`);
      }),
      { numRuns: runs(200) },
    );
  });

  it('is read as written once the item is quoted', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 4 }), item, word, fc.constantFrom('"', "'"), (before, start, tag, quote) => {
        const hashed = `${start} #${tag}`;
        const parsed = parse(`${HEAD}examples: [${[...before, `${quote}${hashed}${quote}`].join(', ')}]\n${TAIL}`);
        expect(parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
        expect(parsed.tool?.examples).toEqual([...before, hashed]);
      }),
      { numRuns: runs(200) },
    );
  });
});

describe("a ': ' inside a plain value (property-based)", () => {
  it("is told at the value, naming its key and saying to quote it; quoted, it is read as written", () => {
    fc.assert(
      fc.property(item, item, (left, right) => {
        const value = `${left}: ${right}`;
        const parsed = parse(`name: demo\ndisplay: Demo\nintent: ${value}\nmethod: run\nexecutor: shell\n${TAIL}`);
        expect(parsed.tool).toBeNull();
        expect(parsed.diagnostics[0]).toMatchObject({ line: 3, column: 9, message: `the value of 'intent' holds ': ', which YAML reads as the start of a mapping inside it: quote the whole value (intent: "…")` });
        const quoted = parse(`name: demo\ndisplay: Demo\nintent: "${value}"\nmethod: run\nexecutor: shell\n${TAIL}`);
        expect(quoted.tool?.intent).toBe(value);
      }),
      { numRuns: runs(200) },
    );
  });
});
