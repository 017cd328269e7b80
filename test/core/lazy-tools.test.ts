import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { compareToolNames, eachTool, findTool, indexWith, toolCount, toolsOf, withLazyTools, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';

// only the fields an index's order and lookups read; the rest of a definition plays no part here
function makeTool(name: string): ToolDefinition {
  return { name, aliases: [], source: { path: `tools/${name}/TOOL.hdlp`, oid: name } } as unknown as ToolDefinition;
}

const FIELDS = { source: 's', commit: 'c', toolsets: [], skills: [], policies: [], errors: [], warnings: [], scanned_at: 't' };

function eagerAndLazy(names: string[]): { eager: ToolIndex; lazy: ToolIndex; made: number[] } {
  const tools = [...new Set(names)].map(makeTool).sort(compareToolNames);
  const made: number[] = [];
  const lazy = withLazyTools(FIELDS, tools.map((tool) => tool.name), (position) => {
    made.push(position);
    return tools[position]!;
  });
  const { source, commit, ...rest } = FIELDS;
  return { eager: { source, commit, tools, ...rest }, lazy, made };
}

describe('withLazyTools', () => {
  it('finds every tool and no other as an index built whole does, making each tool at most once', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 40 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 20 }), (names, others) => {
        const { eager, lazy, made } = eagerAndLazy(names);
        for (const name of [...names, ...others, ...names]) expect(findTool(lazy, name)).toBe(findTool(eager, name));
        expect(new Set(made).size).toBe(made.length);
        expect(lazy.tools).toEqual(eager.tools);
        expect(new Set(made).size).toBe(made.length);
      }),
    );
  });

  describe('when the whole list is read', () => {
    it('gives the very objects the lookups gave, in the order and with the fields of a built index', () => {
      const { eager, lazy, made } = eagerAndLazy(['gamma', 'alpha', 'beta']);
      const beta = findTool(lazy, 'beta');
      expect(made).toEqual([1]);
      expect(lazy.tools[1]).toBe(beta);
      expect(made).toEqual([1, 0, 2]);
      expect(Object.keys(lazy)).toEqual(['source', 'commit', 'tools', 'toolsets', 'skills', 'policies', 'errors', 'warnings', 'scanned_at']);
      expect(JSON.stringify(lazy)).toBe(JSON.stringify({ ...eager, tools: eager.tools }));
    });

    it('is read by a copy, which is then an index like any other', () => {
      const { lazy } = eagerAndLazy(['beta', 'alpha']);
      const copy: ToolIndex = { ...lazy, tools: lazy.tools.filter((tool) => tool.name === 'beta') };
      expect(findTool(copy, 'alpha')).toBeUndefined();
      expect(findTool(copy, 'beta')?.name).toBe('beta');
      expect(findTool(lazy, 'alpha')?.name).toBe('alpha');
    });
  });

  describe('when its tools are counted', () => {
    it('counts them without making any, as many as a built index holds, before and after the list is read', () => {
      fc.assert(
        fc.property(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 40 }), (names) => {
          const { eager, lazy, made } = eagerAndLazy(names);
          expect(toolCount(lazy)).toBe(eager.tools.length);
          expect(made).toEqual([]);
          expect(lazy.tools).toHaveLength(toolCount(lazy));
          expect(toolCount(lazy)).toBe(toolCount(eager));
        }),
      );
    });
  });

  describe('when its tools are no longer held', () => {
    // a full collection, as the process would run one sooner or later
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;

    it('makes one asked for again afresh, equal to the one before; one still held is that very object', async () => {
      const tools = Array.from({ length: 600 }, (_, at) => makeTool(`tool-${String(at).padStart(4, '0')}`));
      const made: number[] = [];
      const lazy = withLazyTools(FIELDS, tools.map((tool) => tool.name), (position) => {
        made.push(position);
        return { ...tools[position]! };
      });
      const held = findTool(lazy, 'tool-0000');
      const sequence = toolsOf(lazy);
      // more than the few lately made that the index keeps
      for (let position = 1; position < tools.length; position++) expect(sequence.at(position)).toEqual(tools[position]);
      // a collection runs between turns of the event loop: what a turn deref'd stays alive until it ends
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();
      expect(findTool(lazy, 'tool-0000')).toBe(held);
      const again = sequence.at(1);
      expect(again).toEqual(tools[1]);
      expect(made.filter((position) => position === 1)).toHaveLength(2);
      expect(made.filter((position) => position === 0)).toHaveLength(1);
      expect(sequence.nameAt?.(599)).toBe('tool-0599');
      expect(made.filter((position) => position === 599)).toHaveLength(1);
    });
  });
});

describe('eachTool', () => {
  it('gives the tools of an index in order; of a lazy one without keeping those it makes, and the very ones it made before', () => {
    const tools = ['gamma', 'alpha', 'beta'].map(makeTool).sort(compareToolNames);
    const asked: Array<[number, boolean]> = [];
    const lazy = withLazyTools(FIELDS, tools.map((tool) => tool.name), (position, keep) => {
      asked.push([position, keep]);
      // a fresh object each time, as a cache file's line parsed again gives
      return { ...tools[position]! };
    });
    const beta = findTool(lazy, 'beta');
    const seen = [...eachTool(lazy)];
    expect(seen).toEqual(tools);
    expect(seen[1]).toBe(beta);
    expect(asked).toEqual([[1, true], [0, false], [2, false]]);
    // not kept: the list made afterwards makes them again, once
    expect(lazy.tools[0]).not.toBe(seen[0]);
    expect(asked).toEqual([[1, true], [0, false], [2, false], [0, true], [2, true]]);
    expect([...eachTool(lazy)]).toEqual(tools);
    expect([...eachTool(lazy)][0]).toBe(lazy.tools[0]);
    const { source, commit, ...rest } = FIELDS;
    expect([...eachTool({ source, commit, tools, ...rest })]).toEqual(tools);
  });
});

describe('indexWith', () => {
  const stale = { reason: 'cannot reach the remote', since: '2026-12-03T00:00:00.000Z' };

  it('is the spread of the index with the fields set, those given as undefined left out, for a lazy index and a built one', () => {
    const before = { reason: 'before', since: 'then' };
    // what the scanner asks: stale set, or left out (with another field changed)
    const changes = fc.constantFrom<Partial<ToolIndex>>({ stale }, { stale: undefined }, { stale: undefined, commit: 'd' });
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 30 }), fc.boolean(), changes, (names, wasStale, fields) => {
        const { eager, lazy } = eagerAndLazy(names);
        const start = wasStale ? indexWith(lazy, { stale: before }) : lazy;
        const spread: Record<string, unknown> = { ...(wasStale ? { ...eager, stale: before } : eager), ...fields };
        for (const [key, value] of Object.entries(fields)) if (value === undefined) delete spread[key];
        const copy = indexWith(start, fields);
        expect(Object.keys(copy)).toEqual(Object.keys(spread));
        expect(JSON.stringify(copy)).toBe(JSON.stringify(spread));
        expect(JSON.stringify(indexWith(eager, fields))).toBe(JSON.stringify({ ...eager, ...fields }));
      }),
    );
  });

  it('of a lazy index makes no tool: its tools are made as the index makes them, the very same objects', () => {
    const { lazy, made } = eagerAndLazy(['gamma', 'alpha', 'beta']);
    const beta = findTool(lazy, 'beta');
    const copy = indexWith(lazy, { stale });
    expect(made).toEqual([1]);
    expect(Array.isArray(toolsOf(copy))).toBe(false);
    expect(toolCount(copy)).toBe(3);
    expect(findTool(copy, 'beta')).toBe(beta);
    expect(toolsOf(copy).nameAt?.(0)).toBe('alpha');
    expect(made).toEqual([1]);
    expect(copy.stale).toEqual(stale);
    expect(lazy.stale).toBeUndefined();
    const fresh = indexWith(copy, { stale: undefined });
    expect('stale' in fresh).toBe(false);
    expect(Array.isArray(toolsOf(fresh))).toBe(false);
    // the whole list, once read, is the index's own
    expect(copy.tools[1]).toBe(beta);
    expect(copy.tools).toBe(lazy.tools);
    expect(fresh.tools).toBe(lazy.tools);
    expect(made).toEqual([1, 0, 2]);
  });
});
