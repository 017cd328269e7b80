import { describe, expect, it, vi } from 'vitest';
import type { ToolSequence } from '../../src/core/index.js';

// every edit distance the near names work out, counted: a name far longer than any tool's must not be compared letter
// by letter with each name and alias (review L, L7: a 1 MiB unknown name held the event loop for seconds a lookup)
const compared = vi.hoisted(() => ({ lengths: [] as number[] }));
vi.mock('fastest-levenshtein', async (original) => {
  const real = await original<typeof import('fastest-levenshtein')>();
  return {
    ...real,
    distance: (a: string, b: string) => {
      compared.lengths.push(Math.max(a.length, b.length));
      return real.distance(a, b);
    },
  };
});

const { nearNames } = await import('../../src/matcher/near-names.js');

const NAMES = ['file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec'];
const tools: ToolSequence = { length: NAMES.length, at: (position) => ({ name: NAMES[position], display: NAMES[position] }) as never, nameAt: (position) => NAMES[position] };
const aliases = { texts: ['run a shell command', '执行命令'], positions: [4, 4] };

describe('nearNames for a name far longer than every tool name and alias', () => {
  it('compares no spelling, and still names the tool that shares a word with it', () => {
    compared.lengths.length = 0;
    const near = nearNames(tools, aliases, `shell-exec${'x'.repeat(1 << 20)}`);
    expect(compared.lengths).toEqual([]);
    expect(near.map((miss) => miss.name)).toEqual(['shell-exec']);
  });

  it('still compares the spelling of a name within reach of one (a typo)', () => {
    compared.lengths.length = 0;
    expect(nearNames(tools, aliases, 'shel-exec').map((miss) => miss.name)[0]).toBe('shell-exec');
    expect(compared.lengths.length).toBeGreaterThan(0);
  });
});
