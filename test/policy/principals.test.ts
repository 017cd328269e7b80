import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { hashToken, Principals } from '../../src/policy/index.js';

vi.mock('node:crypto', async (original) => {
  const actual = await original<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const configs = ['one', 'two', 'three', 'four'].map((name) => ({ name, roles: ['agent' as const], tokenSha256: hashToken(`${name}-token-0123456789`) }));

describe('Principals.authenticate', () => {
  it('finds the principal of a token and nobody for any other', () => {
    const principals = new Principals(configs);
    expect(principals.authenticate('three-token-0123456789')?.name).toBe('three');
    expect(principals.authenticate('three-token-012345678')).toBeUndefined();
    expect(principals.authenticate(hashToken('three-token-0123456789'))).toBeUndefined();
  });

  it('compares the token\'s digest with every principal\'s in constant time, whichever matches, and never the token itself', () => {
    const principals = new Principals(configs);
    const compare = vi.mocked(crypto.timingSafeEqual);
    for (const token of ['one-token-0123456789', 'four-token-0123456789', 'nobody-0123456789']) {
      compare.mockClear();
      principals.authenticate(token);
      // one comparison per principal: the first match does not end the loop early
      expect(compare).toHaveBeenCalledTimes(configs.length);
      for (const [given, expected] of compare.mock.calls) {
        expect((given as Buffer).length).toBe(32);
        expect((expected as Buffer).length).toBe(32);
      }
    }
  });

  it('holds no principal named local, and nothing in clear', () => {
    expect(() => new Principals([{ name: 'local', roles: ['admin'], tokenSha256: hashToken('x'.repeat(20)) }])).toThrow(/reserved/);
    expect(() => new Principals([{ name: 'bot', roles: ['agent'], tokenSha256: 'bot-token-0123456789' }])).toThrow(/64 hex digits/);
  });
});
