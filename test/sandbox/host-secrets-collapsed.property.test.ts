import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapsed } from '../../src/sandbox/host-secrets.js';

// Review M, M1: the start hid at most 256 root-only entries of /etc and left the rest readable. Now the folders holding
// the most are hidden whole in their place: whatever is found stays covered, within the bound wherever a folder below
// /etc can make room, and /etc itself is never hidden.
const inside = (path: string, folder: string): boolean => path === folder || path.startsWith(`${folder}/`);
const paths = fc.uniqueArray(
  fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 4 }).map((parts) => `/etc/${parts.join('/')}`),
  { maxLength: 80 },
);

describe('collapsed', () => {
  it('covers every path found, never hides /etc, and keeps within the bound when a folder can make room', () => {
    fc.assert(
      fc.property(paths, fc.integer({ min: 1, max: 40 }), (found, most) => {
        // a hidden folder's contents need no entry of their own: what the walk finds never holds both
        const minimal = found.filter((path) => !found.some((other) => other !== path && inside(path, other)));
        const result = collapsed(minimal, '/etc', most);
        for (const path of minimal) expect(result.some((hidden) => inside(path, hidden))).toBe(true);
        expect(result).not.toContain('/etc');
        const fit = result.length <= most || result.every((path) => path.split('/').length === 3 || !result.some((other) => other !== path && other.split('/').slice(0, -1).join('/') === path.split('/').slice(0, -1).join('/')));
        expect(fit).toBe(true);
        if (minimal.length <= most) expect(result.sort()).toEqual([...minimal].sort());
      }),
    );
  });

  it('hides a folder of 300 root-only files as one', () => {
    const found = Array.from({ length: 300 }, (_, at) => `/etc/tenants/f${at}`);
    expect(collapsed([...found, '/etc/shadow'], '/etc', 256)).toEqual(['/etc/shadow', '/etc/tenants']);
  });
});
