import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { documentJS } from '../../src/scanner/document-js.js';
import { runs } from '../helpers/property-runs.js';

// Review Z21, Z21-1: yaml's own alias count walked the whole document for each alias inside an anchored collection at
// each of its uses while that collection's count was 0 (aliases to empty lists), 16,000 walks for 255 aliases; the
// count is made here in one pass instead, and yaml builds the document with its own off. It must refuse exactly what
// yaml's count refuses (the same bound, the same weighting of aliases inside anchors), and build the same value.

type Tree = { t: 'scalar'; anchor: number | null } | { t: 'alias'; pick: number } | { t: 'seq' | 'map'; anchor: number | null; items: Tree[] };

const anchor = fc.option(fc.nat(3), { freq: 2 });
const tree = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ t: fc.constant('scalar' as const), anchor }),
    fc.record({ t: fc.constant('alias' as const), pick: fc.nat() }),
    fc.record({ t: fc.constantFrom('seq' as const, 'map' as const), anchor, items: fc.array(tie('tree'), { maxLength: 5 }) }),
  ),
})).tree;

/** Flow YAML of `root`: anchors `&aN` as drawn, each alias naming an anchor whose node is complete (so no cycle). */
function render(root: Tree): string {
  const defined: string[] = [];
  const go = (node: Tree): string => {
    if (node.t === 'alias') return defined.length === 0 ? 'x' : `*${defined[node.pick % defined.length]!}`;
    const name = node.anchor === null ? undefined : `a${node.anchor}`;
    // an anchor named again: the node's own aliases may not name it (yaml would resolve them to the node: a cycle)
    while (name !== undefined && defined.includes(name)) defined.splice(defined.indexOf(name), 1);
    const body = node.t === 'scalar' ? 'v' : node.t === 'seq' ? `[${node.items.map(go).join(', ')}]` : `{${node.items.map((item, i) => `k${i}: ${go(item)}`).join(', ')}}`;
    if (name === undefined) return body;
    defined.push(name);
    return `&${name} ${body}`;
  };
  return go(root);
}

function outcome(build: () => unknown): { refused: true } | { value: unknown } {
  try {
    return { value: build() };
  } catch (error) {
    if (error instanceof ReferenceError && /Excessive alias count/.test(error.message)) return { refused: true };
    throw error;
  }
}

describe("documentJS: yaml's alias count, counted in one pass (review Z21, Z21-1)", () => {
  it('refuses what yaml refuses, at any bound, and builds what yaml builds', () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 40 }), (items, bound) => {
        const text = render({ t: 'seq', anchor: null, items });
        const expected = outcome(() => parseDocument(text).toJS({ maxAliasCount: bound }));
        expect(outcome(() => documentJS(parseDocument(text), bound)), text).toEqual(expected);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('refuses an anchor used past the bound, and counts an anchored list of aliases to empty lists once (no walk per use)', () => {
    expect(() => documentJS(parseDocument(`[&i x, ${Array(100).fill('*i').join(', ')}]`))).toThrow(ReferenceError);
    expect(documentJS(parseDocument(`[&i x, ${Array(99).fill('*i').join(', ')}]`))).toHaveLength(100);
    // the reviewer's shape: what yaml's count let through, it lets through
    const text = `e: &e []\nL: &L [${Array(128).fill('*e').join(', ')}]\nu: [${Array(127).fill('*L').join(', ')}]\npad: [${Array(2000).fill(0).join(', ')}]\n`;
    const value = documentJS(parseDocument(text)) as { u: unknown[][]; pad: number[] };
    expect(value.u).toHaveLength(127);
    expect(value.u[126]).toHaveLength(128);
  });
});
