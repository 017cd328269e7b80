import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportedName, exportNames, nameFingerprint, NAME_LIMITS, PORTABLE_NAME, RESERVED_NAMES } from '../../src/export/index.js';
import { runs } from '../helpers/property-runs.js';

const long = (length: number, letter = 'x') => letter.repeat(length);

describe('exportedName', () => {
  describe('when the name already fits the format', () => {
    it.each([
      ['shell-exec', 64],
      ['git_ops', 64],
      ['A1-b2_C3', 64],
      [long(64), 64],
      [long(128), 128],
    ])('returns %j unchanged (limit %i)', (name, limit) => {
      expect(exportedName(name, limit, RESERVED_NAMES)).toBe(name);
    });
  });

  describe('when the name has to change', () => {
    it.each([
      ['git.ops', 64, 'git_ops_32b6ce5f'],
      ['a.b', 128, 'a_b_2e7336dc'],
      ['工具', 64, '___5ca6730d'],
      ['tool_find', 64, 'tool_find_c656d3f6'],
      ['confirm', 128, 'confirm_3f267c2a'],
      [long(100), 64, `${long(55)}_09ecb6eb`],
      [`deploy.${long(70, 'y')}`, 64, `deploy_${long(48, 'y')}_d8c58e83`],
    ])('returns %j as its portable stem and a fingerprint of the full name (limit %i): %j', (name, limit, expected) => {
      const exported = exportedName(name, limit, RESERVED_NAMES);
      expect(exported).toBe(expected);
      expect(exported).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(exported.length).toBeLessThanOrEqual(limit);
    });
  });
});

describe('exportNames', () => {
  describe('when normalising would make two names collide', () => {
    it('keeps the name that fits and fingerprints the one that changed', () => {
      const names = exportNames(['a.b', 'a_b'], NAME_LIMITS.mcp, RESERVED_NAMES);
      expect(Object.fromEntries(names)).toEqual({ 'a.b': 'a_b_2e7336dc', a_b: 'a_b' });
    });
  });

  describe('when two long names share their first 64 characters', () => {
    it('returns distinct names within the limit, never a bare cut', () => {
      const first = `${long(64)}-first`;
      const second = `${long(64)}-second`;
      const names = exportNames([first, second], NAME_LIMITS.openai);
      expect(names.get(first)).not.toBe(names.get(second));
      for (const name of names.values()) {
        expect(name).toHaveLength(64);
        expect(name).not.toBe(long(64));
      }
    });
  });

  describe('when another tool is added to the registry', () => {
    it('returns the same exported names for the tools that were there', () => {
      const before = exportNames(['git.ops', 'shell-exec'], NAME_LIMITS.openai, RESERVED_NAMES);
      const after = exportNames(['git.ops', 'git_ops', 'new.tool', 'shell-exec'], NAME_LIMITS.openai, RESERVED_NAMES);
      expect(after.get('git.ops')).toBe(before.get('git.ops'));
      expect(after.get('shell-exec')).toBe(before.get('shell-exec'));
    });
  });

  describe('when a name that fits equals another name’s fingerprinted form', () => {
    it('returns a longer fingerprint for the changed one', () => {
      const names = exportNames(['git.ops', 'git_ops_32b6ce5f'], NAME_LIMITS.openai);
      expect(names.get('git_ops_32b6ce5f')).toBe('git_ops_32b6ce5f');
      expect(names.get('git.ops')).toBe(`git_ops_${nameFingerprint('git.ops', 16)}`);
    });
  });

  describe('when a registry tool is named like a meta-tool', () => {
    it.each([['tool_find'], ['confirm']])('returns %j with a fingerprint suffix, never the reserved name', (name) => {
      const exported = exportNames([name], NAME_LIMITS.mcp, RESERVED_NAMES).get(name)!;
      expect(exported).toBe(`${name}_${nameFingerprint(name)}`);
    });
  });
});

describe('exportNames over any registry', () => {
  // names an author could commit, and names built to shadow another's fingerprinted forms at every length
  const shadowed = fc.string({ minLength: 1, maxLength: 12 }).map((name) => [name, ...[8, 16, 32, 64, 63].map((length) => `${name.replace(/[^A-Za-z0-9_-]/g, '_')}_${nameFingerprint(name, length)}`)]);
  const registry = fc.uniqueArray(fc.oneof(fc.string({ maxLength: 140 }), fc.stringMatching(/^[a-z_.]{1,6}$/), fc.constantFrom(...RESERVED_NAMES)), { maxLength: 30 });
  const names = fc.tuple(registry, fc.array(shadowed, { maxLength: 3 })).map(([plain, groups]) => [...new Set([...plain, ...groups.flat()])]);

  it.each([['mcp'], ['openai']] as const)('returns distinct, portable, unreserved %s names within the limit, the same in any order', (format) => {
    fc.assert(
      fc.property(names, fc.func(fc.integer()), (registryNames, order) => {
        const limit = NAME_LIMITS[format];
        const exported = exportNames(registryNames, limit, RESERVED_NAMES);
        const values = [...exported.values()];
        expect(new Set(values).size).toBe(registryNames.length);
        for (const [name, value] of exported) {
          expect(value).toMatch(PORTABLE_NAME);
          expect(value.length).toBeLessThanOrEqual(limit);
          expect(RESERVED_NAMES.has(value)).toBe(false);
          if (PORTABLE_NAME.test(name) && name.length <= limit && !RESERVED_NAMES.has(name)) expect(value).toBe(name);
        }
        const shuffled = [...registryNames].sort((left, right) => order(left) - order(right));
        expect(exportNames(shuffled, limit, RESERVED_NAMES)).toEqual(exported);
      }),
      { numRuns: runs(300) },
    );
  });

  it('returns a numbered name for the one whose fingerprints are all taken by names that fit', () => {
    const taken = [8, 16, 32, 64].map((length) => `a_b_${nameFingerprint('a.b', length)}`);
    const exported = exportNames(['a.b', ...taken], NAME_LIMITS.mcp, RESERVED_NAMES);
    expect(exported.get('a.b')).toBe(`a_b_${nameFingerprint('a.b')}_2`);
    for (const name of taken) expect(exported.get(name)).toBe(name);
  });
});
