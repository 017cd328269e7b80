import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { compileCondition } from '../../src/policy/index.js';
import { validateDefinitionFiles } from '../../src/scanner/index.js';
import { makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// Property-based tests of what reads hostile input: a policy file (repository content) and the params a
// condition reads (caller content). Runs are counted so that the file takes a few seconds.

const TOOL = { path: 'tools/alpha/TOOL.hdlp', folder: 'alpha', oid: 't', content: Buffer.from(makeToolYaml('alpha', { group: 'letters' })) };

function lint(text: string | Uint8Array) {
  const content = typeof text === 'string' ? Buffer.from(text) : text;
  return validateDefinitionFiles([{ kind: 'policy', path: 'policies/p.hdlp', folder: 'p', oid: 'p', content }], [TOOL]);
}

const ruleArbitrary = fc.record(
  {
    tools: fc.oneof(fc.constant(['alpha']), fc.constant(['*']), fc.array(fc.string(), { maxLength: 3 }), fc.string()),
    decision: fc.oneof(fc.constantFrom('allow', 'approve', 'deny'), fc.string(), fc.integer()),
    when: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.record({ glob: fc.string() }), fc.record({ regex: fc.string() }), fc.record({ equals: fc.jsonValue() }), fc.jsonValue()), { maxKeys: 3 }),
    self_approval: fc.oneof(fc.boolean(), fc.string()),
    expires_in_ms: fc.oneof(fc.integer(), fc.double()),
  },
  { requiredKeys: [] },
);

describe('the policy parser', () => {
  it('never throws: a policy or errors, every error at a place in the file', () => {
    fc.assert(
      fc.property(fc.record({ name: fc.oneof(fc.constant('p'), fc.string()), author: fc.string(), why: fc.string(), approval: fc.array(ruleArbitrary, { maxLength: 4 }), access: fc.jsonValue() }, { requiredKeys: [] }), (document) => {
        const text = stringify(document);
        const result = lint(text);
        expect(result.policies + (result.errors.length > 0 ? 1 : 0)).toBe(1);
        const lines = text.split('\n').length;
        for (const error of result.errors) {
          expect(error.file).toBe('policies/p.hdlp');
          expect(error.line).toBeGreaterThanOrEqual(1);
          expect(error.line).toBeLessThanOrEqual(lines + 1);
        }
      }),
      { numRuns: runs(150) },
    );
  });

  it('never throws on bytes that are not YAML at all', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
      const result = lint(bytes);
      expect(result.policies + result.errors.length).toBeGreaterThan(0);
    }), { numRuns: runs(300) });
  });
});

const segment = fc.oneof(fc.constantFrom('..', '.', 'agent', 'etc', '.env', 'a b', '*'), fc.stringMatching(/^[a-z.]{1,6}$/));
const pathArbitrary = fc.tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 6 })).map(([absolute, parts]) => `${absolute ? '/' : ''}${parts.join('/')}`);

describe('a glob condition', () => {
  const strict = compileCondition({ glob: 'agent/**' }, 'strict');
  const broad = compileCondition({ glob: 'agent/**' }, 'broad');

  it('never lets a path that climbs out with .. through an allow rule, and always catches it for approve and deny', () => {
    fc.assert(fc.property(pathArbitrary, (path) => {
      const normal = posix.normalize(path);
      if (normal === '..' || normal.startsWith('../')) {
        expect(strict(path)).toBe(false);
        expect(broad(path)).toBe(true);
      }
    }), { numRuns: runs(500) });
  });

  it('reads a path as its normal form: ./ and x/.. change nothing', () => {
    fc.assert(fc.property(pathArbitrary, fc.stringMatching(/^[a-z]{1,5}$/), (path, detour) => {
      if (path.startsWith('/')) return;
      const dressed = `./${detour}/../${path}`;
      expect(strict(dressed)).toBe(strict(path));
      expect(broad(dressed)).toBe(broad(path));
    }), { numRuns: runs(500) });
  });

  it('matches a list strictly only when every element matches, broadly when any does', () => {
    fc.assert(fc.property(fc.array(pathArbitrary, { minLength: 1, maxLength: 5 }), (paths) => {
      expect(strict(paths)).toBe(paths.every((path) => strict(path)));
      expect(broad(paths)).toBe(paths.some((path) => broad(path)));
    }), { numRuns: runs(300) });
  });
});

describe('a glob condition under a tool root', () => {
  const ROOTS = ['/srv/link-to-workspace', '/data/workspace'];
  const name = fc.oneof(fc.constantFrom('secrets', 'agent', 'key', '.env', 'a b', 'x.txt'), fc.stringMatching(/^[a-z][a-z.]{0,5}$/));
  // one path inside the root, as its canonical relative segments, and a way of spelling it
  const spelled = fc.record({
    parts: fc.array(name, { minLength: 1, maxLength: 5 }),
    root: fc.constantFrom(undefined, ...ROOTS),
    detours: fc.array(fc.constantFrom('.', 'dot', 'detour', 'double', 'none'), { minLength: 6, maxLength: 6 }),
    trailing: fc.boolean(),
  }).map(({ parts, root, detours, trailing }) => {
    const pieces = parts.map((part, index) => {
      const detour = detours[index];
      if (detour === 'dot') return `./${part}`;
      if (detour === 'detour') return `zz/../${part}`;
      if (detour === 'double') return `${part}/`;
      return part;
    });
    const body = pieces.join('/') + (trailing ? '/' : '');
    return { canonical: parts.join('/'), spelling: root === undefined ? body : `${root}/${detours[5] === 'dot' ? './' : ''}${body}` };
  });

  it.each(['secrets/**', 'agent/*.txt', '**/.env', '*', '/data/workspace/secrets/**'])('judges any spelling of a path inside the root as its canonical relative path (%s)', (glob) => {
    const strict = compileCondition({ glob }, 'strict');
    const broad = compileCondition({ glob }, 'broad');
    fc.assert(fc.property(spelled, ({ canonical, spelling }) => {
      expect(strict(spelling, ROOTS)).toBe(strict(canonical, ROOTS));
      expect(broad(spelling, ROOTS)).toBe(broad(canonical, ROOTS));
    }), { numRuns: runs(300) });
  });

  it('judges a `..` after a symlink where the kernel resolves it, the link first (review P, P5): a real folder', () => {
    // root/secrets/sub and root/l -> secrets/sub: `l/../REST` is secrets/REST to any program, whatever REST is
    const root = mkdtempSync(join(tmpdir(), 'hldp-rooted-'));
    try {
      mkdirSync(join(root, 'secrets', 'sub'), { recursive: true });
      mkdirSync(join(root, 'agent'));
      symlinkSync('secrets/sub', join(root, 'l'));
      symlinkSync('../secrets/sub', join(root, 'agent', 'in'));
      const deny = compileCondition({ glob: 'secrets/**' }, 'broad');
      const allow = compileCondition({ glob: 'agent/**' }, 'strict');
      fc.assert(fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), fc.boolean(), (parts, absolute) => {
        const rest = parts.join('/');
        const base = absolute ? `${root}/` : '';
        expect(deny(`${base}l/../${rest}`, [root])).toBe(true);
        expect(allow(`${base}agent/in/../${rest}`, [root])).toBe(false);
        // an allow rule's `*` does not cover dot files; `agent/in/…` is under secrets/sub, wherever it is spelt
        expect(allow(`${base}agent/${rest}`, [root])).toBe(!parts.some((part) => part.startsWith('.')) && parts[0] !== 'in');
      }), { numRuns: runs(200) });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('judges a relative path of a tool with its own cwd where the program opens it, the cwd spelt any way (review Q, Q9): a real folder', () => {
    const root = mkdtempSync(join(tmpdir(), 'hldp-rooted-'));
    try {
      mkdirSync(join(root, 'secrets', 'sub'), { recursive: true });
      mkdirSync(join(root, 'public'));
      symlinkSync('secrets/sub', join(root, 'l'));
      symlinkSync('secrets', join(root, 's'));
      const deny = compileCondition({ glob: 'secrets/**' }, 'broad');
      const allow = compileCondition({ glob: 'public/**' }, 'strict');
      const intoSecrets = fc.constantFrom('secrets', './secrets/', 'public/../secrets', 'l/..', 's', 'secrets/sub', `${root}/secrets`, `${root}/l/..`);
      const intoPublic = fc.constantFrom('public', './public', 'secrets/../public', `${root}/public`, `${root}/secrets/sub/../../public`);
      fc.assert(fc.property(fc.array(name, { minLength: 1, maxLength: 3 }), intoSecrets, intoPublic, (parts, secretCwd, publicCwd) => {
        const path = parts.join('/');
        expect(deny(path, [root], secretCwd)).toBe(true);
        expect(allow(path, [root], secretCwd)).toBe(false);
        expect(deny(path, [root], publicCwd)).toBe(false);
        expect(allow(path, [root], publicCwd)).toBe(!parts.some((part) => part.startsWith('.')));
        // a cwd the gateway cannot place: no relative path can be judged
        expect(deny(path, [root], null)).toBe(true);
        expect(allow(path, [root], null)).toBe(false);
      }), { numRuns: runs(200) });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('catches a path outside the root for approve and deny, never for allow', () => {
    const strict = compileCondition({ glob: 'secrets/**' }, 'strict');
    const broad = compileCondition({ glob: 'secrets/**' }, 'broad');
    fc.assert(fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), fc.constantFrom('/etc', '/data/workspace-other', '/data'), (parts, elsewhere) => {
      const outside = `${elsewhere}/${parts.join('/')}`;
      expect(strict(outside, ROOTS)).toBe(false);
      expect(broad(outside, ROOTS)).toBe(true);
    }), { numRuns: runs(200) });
  });
});

describe('a regex condition', () => {
  it('answers in linear time where a backtracking engine would not return', () => {
    const test = compileCondition({ regex: '^(a+)+$' }, 'broad');
    const start = performance.now();
    expect(test(`${'a'.repeat(50_000)}!`)).toBe(false);
    // generous: a backtracking engine takes longer than the age of the universe here
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});

describe('a condition over a value that is not a scalar', () => {
  const scalar = fc.oneof(fc.constantFrom('prod-db', 'prod', 'dev', 'agent/x', '../etc', ''), fc.string({ maxLength: 6 }), fc.integer(), fc.boolean());
  const { nested } = fc.letrec<{ nested: unknown }>((tie) => ({
    nested: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.constant(null),
      fc.array(tie('nested'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.constantFrom('prod', 'host', 'agent/k'), fc.string({ maxLength: 4 })), tie('nested'), { maxKeys: 4 }),
    ),
  }));
  const conditions = [{ regex: 'prod' }, { equals: ['dev', 3, true] }, { glob: 'agent/**' }, { regex: 'prod', equals: 'prod-db' }];

  // every scalar a tool could read in the value: elements, values at any depth, and keys
  function scalarsOf(value: unknown): unknown[] {
    if (Array.isArray(value)) return value.flatMap(scalarsOf);
    if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => [key, ...scalarsOf(inner)]);
    return [value];
  }

  it.each(conditions)('a broad rule is never less strict than on the value\'s scalars, a strict one never matches an object (%j)', (condition) => {
    const broad = compileCondition(condition, 'broad');
    const strict = compileCondition(condition, 'strict');
    fc.assert(fc.property(nested, (value) => {
      if (scalarsOf(value).some((inner) => broad(inner))) expect(broad(value)).toBe(true);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) expect(strict(value)).toBe(false);
      if (Array.isArray(value) && value.some((inner) => inner !== null && typeof inner === 'object')) expect(strict(value)).toBe(false);
    }), { numRuns: runs(400) });
  });

  it('a broad rule matches a value nested too deep to read', () => {
    let deep: unknown = 'dev';
    for (let level = 0; level < 200; level += 1) deep = { a: deep };
    expect(compileCondition({ regex: 'prod' }, 'broad')(deep)).toBe(true);
    expect(compileCondition({ regex: 'prod' }, 'strict')(deep)).toBe(false);
  });
});
