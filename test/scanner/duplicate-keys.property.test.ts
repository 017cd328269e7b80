import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { withDuplicateKeys, YAML_OPTIONS } from '../../src/scanner/yaml-syntax-message.js';
import { runs } from '../helpers/property-runs.js';

// Review Z14, Z14-3: yaml's own duplicate-key check compares each key with every earlier one of its mapping, so a
// definition of 90,000 keys took 3.5 minutes of CPU. Definitions are parsed with it off, and `withDuplicateKeys`
// adds the same DUPLICATE_KEY errors with a set per mapping. Whatever the text — block and flow mappings, nested,
// keys that are equal as values though written differently ('1' and 1 are not; 1 and 0x1 are) — the errors are the
// ones yaml gives, at the same offsets, in the same order.

const key = fc.constantFrom('a', 'b', 'a ', '"a"', "'b'", '1', '0x1', '01', '"1"', 'null', '~', 'true', 'True', '.nan', 'x y', '? c', '-0', '0');
const scalar = fc.constantFrom('1', 'v', '"q"', '[1, 2]', '{}', 'null', '&n 3', '*n');
type Node = { pairs: Array<[string, Node | string]> };
const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.record({ pairs: fc.array(fc.tuple(key, fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('node'))), { maxLength: 6 }) }),
})).node;

function block(map: Node, indent: string): string {
  if (map.pairs.length === 0) return ' {}\n';
  return '\n' + map.pairs.map(([name, value]) => `${indent}${name}:${typeof value === 'string' ? ` ${value}\n` : block(value, `${indent}  `)}`).join('');
}

function flow(map: Node): string {
  return `{${map.pairs.map(([name, value]) => `${name.startsWith('?') ? name.slice(2) : name}: ${typeof value === 'string' ? value.replace(/^&n |^\*n$/, 'w') : flow(value)}`).join(', ')}}`;
}

const errorsOf = (text: string, own: boolean): Array<[string, number]> => {
  const document = parseDocument(text, { lineCounter: new LineCounter(), ...YAML_OPTIONS, ...(own ? { uniqueKeys: false } : {}) });
  if (own) withDuplicateKeys(document);
  return document.errors.map((error) => [error.code, error.pos[0]]);
};

describe('duplicate keys found with a set per mapping (property-based)', () => {
  it('are the errors yaml itself gives, at the same offsets, in block mappings', () => {
    fc.assert(
      fc.property(node, (map) => {
        const text = `top:${block(map, '  ')}other: 1\n`;
        expect(errorsOf(text, true)).toEqual(errorsOf(text, false));
      }),
      { numRuns: runs(300) },
    );
  });

  // yaml checks a flow mapping's key after composing its value, so its errors of nested flow mappings come inner first;
  // these are told in the order they are written
  it('and in flow mappings, nested in a block one (the same errors, in the order they are written)', () => {
    const byOffset = (errors: Array<[string, number]>): Array<[string, number]> => [...errors].sort((x, y) => x[1] - y[1]);
    fc.assert(
      fc.property(node, node, (first, second) => {
        const text = `a: ${flow(first)}\nb:${block(second, '  ')}`;
        expect(errorsOf(text, true)).toEqual(byOffset(errorsOf(text, false)));
      }),
      { numRuns: runs(300) },
    );
  });
});
