// Review Z17, Z17-5: a `*` rule's when keys are looked up in the union of the params an index served from the scan
// cache keeps for its tools, instead of a walk of every tool. Whatever the tools declare (open or closed, names shared
// or not, the lists patched as a rescan patches them), the look-up says word for word what the walk says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParamListsBuilder, declaredParams, paramListsOf, withLazyTools, type JsonSchema, type PolicyDefinition, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { PolicySet } from '../../src/policy/index.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// a few names, some one slip from another (a did-you-mean), some far
const NAMES = ['path', 'pth', 'patch', 'mode', 'node', 'dry_run', 'owner', 'content'];
const schema = fc.record({ names: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 4 }), open: fc.boolean() }).map(({ names, open }): JsonSchema => ({
  type: 'object', properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])), ...(open ? {} : { additionalProperties: false }),
}));

function indexOf(schemas: readonly JsonSchema[], keys: readonly string[], known: (() => ReturnType<typeof paramListsOf>) | undefined): ToolIndex {
  const tools: ToolDefinition[] = schemas.map((params_schema, at) => makeToolDefinition({ name: `t${String(at).padStart(3, '0')}`, params_schema }));
  const policy: PolicyDefinition = {
    name: 'keys', access: [], author: 't', why: 't', source: { path: 'policies/keys.hdlp', oid: 'p' },
    approval: keys.map((key, at) => ({ tools: ['*'], when: { [key]: { glob: 'secret/**' } }, decision: 'deny' as const, at: { line: 5 + at, column: 3 } })),
  };
  const fields = { source: 'test', commit: 'c1', toolsets: [], skills: [], policies: [policy], errors: [], warnings: [], scanned_at: '' };
  return withLazyTools(fields, tools.map((tool) => tool.name), (position) => tools[position]!, known ? { paramLists: known } : {});
}

describe('the condition-key check over the params an index keeps', () => {
  it('says what the walk of every tool says, of the lists as made and as patched', () => {
    fc.assert(
      fc.property(fc.array(schema, { minLength: 1, maxLength: 12 }), fc.array(fc.tuple(fc.nat(), schema), { maxLength: 4 }), fc.uniqueArray(fc.constantFrom(...NAMES, 'x'), { minLength: 1, maxLength: 3 }), (schemas, swaps, keys) => {
        const lists = paramListsOf(schemas);
        const patched = new ParamListsBuilder(lists);
        const after = schemas.slice();
        for (const [at, swapped] of swaps) {
          after[at % schemas.length] = swapped;
          patched.set(at % schemas.length, declaredParams(swapped));
        }
        const said = (index: ToolIndex) => PolicySet.of(index).conditions;
        expect(said(indexOf(schemas, keys, () => lists))).toEqual(said(indexOf(schemas, keys, undefined)));
        expect(said(indexOf(after, keys, () => patched.lists()))).toEqual(said(indexOf(after, keys, undefined)));
      }),
      { numRuns: runs(100) },
    );
  });
});
