import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseEntry } from '../../src/scanner/build-index.js';
import { ownString, summaryOf, type EntrySummary, type ToolSummary } from '../../src/scanner/entry-summary.js';
import { makeToolYaml } from '../helpers/git.js';

setFlagsFromString('--expose-gc');
setFlagsFromString('--allow-natives-syntax');
const collect = runInNewContext('gc') as () => void;
// whether V8 gave two objects one hidden class (compiled after the flag: the syntax is V8's own)
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

// a definition of ~100 KB (a long comment), its tool named with more than 13 characters (what V8 would cut as a view)
const fileOf = (index: number) => {
  const name = `a-long-tool-name-${index}`;
  const text = `${makeToolYaml(name, { aliases: `[${name}-alias, 别名${name}]`, group: `a-long-group-name-${index}` })}# ${'x'.repeat(100_000)}\n`;
  return { path: `tools/${name}/TOOL.hdlp`, folder: name, oid: `oid-${index}`, content: Buffer.from(text) };
};

const smallFileOf = (index: number) => {
  const name = `tool-${index}`;
  return { path: `tools/${name}/TOOL.hdlp`, folder: name, oid: `oid-${index}`, content: Buffer.from(makeToolYaml(name)) };
};

describe('summaryOf', () => {
  describe('when a cold scan parses in its own thread and keeps only summaries', () => {
    it('keeps none of the definitions\' text alive (its names are copies of their own, not views of the file)', () => {
      const files = Array.from({ length: 300 }, (_, index) => fileOf(index));
      collect();
      const before = process.memoryUsage().heapUsed;
      const summaries: EntrySummary[] = files.map((file) => summaryOf(parseEntry(file)));
      collect();
      const grown = process.memoryUsage().heapUsed - before;
      const tools = summaries.map((summary) => ('tool' in summary ? summary.tool : null));
      expect(tools.every((tool) => tool !== null)).toBe(true);
      expect(tools[7]).toMatchObject({ name: 'a-long-tool-name-7', aliases: ['a-long-tool-name-7-alias', '别名a-long-tool-name-7'], group: 'a-long-group-name-7' });
      // views would hold 300 decoded files of ~100 KB (~30 MB); the summaries themselves are a few hundred KB
      expect(grown).toBeLessThan(8 * 1024 * 1024);
    });
  });

  describe('when many tools are summarised', () => {
    it('gives their summaries one hidden class, not one each (a class and its descriptors were ~240 bytes a tool)', () => {
      // as many as make the code hot (V8 compiles it, as in a scan of thousands)
      const summaries = Array.from({ length: 3000 }, (_, index) => summaryOf(parseEntry(smallFileOf(index))));
      const [first, second] = [summaries.at(-2)!, summaries.at(-1)!];
      expect(haveSameMap(first!, second!)).toBe(true);
      expect(haveSameMap((first as { tool: object }).tool, (second as { tool: object }).tool)).toBe(true);
    });
  });

  describe('when tools are named on the same line and column of their files, and as their folders', () => {
    it('shares one frozen position among them, and each name with its folder, and says the same of each tool', () => {
      const entries = Array.from({ length: 50 }, (_, index) => parseEntry(smallFileOf(index)));
      const summaries = entries.map(summaryOf);
      const positions = new Set(summaries.map((summary) => summary.name_position));
      expect(positions.size).toBe(1);
      expect(Object.isFrozen([...positions][0])).toBe(true);
      summaries.forEach((summary, index) => {
        const entry = entries[index]!;
        expect(summary.name_position).toEqual(entry.name_position);
        const tool = (summary as { tool: ToolSummary }).tool;
        const definition = (entry as { tool: { name: string; aliases: string[]; source: { path: string } } }).tool;
        expect({ name: tool.name, aliases: tool.aliases, path: tool.source.path }).toEqual({ name: definition.name, aliases: definition.aliases, path: definition.source.path });
      });
    });
  });
});

describe('ownString', () => {
  it.each(['', 'short', 'a-long-tool-name-1', '别名 — ёлка', 'lone \ud800 surrogate', 'x'.repeat(5000)])('returns a string equal to case %#', (text) => {
    expect(ownString(text)).toBe(text);
  });
});
