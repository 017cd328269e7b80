import { beforeAll, describe, expect, it } from 'vitest';
import { createMatcher, type LookupResult, type Matcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition, scanStarterTools } from './helpers.js';

function expectInvalid(result: LookupResult): Extract<LookupResult, { valid: false }> {
  if (!result.found || result.valid) throw new Error(`expected invalid params, got ${JSON.stringify(result)}`);
  return result;
}

describe('lookup', () => {
  let matcher: Matcher;
  beforeAll(async () => {
    matcher = createMatcher(await scanStarterTools());
  });

  describe('when the name is exact and the params fit', () => {
    it('returns the tool and the params with defaults filled in', () => {
      const result = matcher.lookup('git-ops', {});
      expect(result).toMatchObject({ found: true, valid: true, data: { op: 'log', limit: 10 } });
      if (result.found) expect(result.tool.name).toBe('git-ops');
    });

    it('returns the spec example call as valid', () => {
      expect(matcher.lookup('shell-exec', { cmd: 'git log --oneline -5' })).toMatchObject({
        found: true,
        valid: true,
        data: { cmd: 'git log --oneline -5' },
      });
    });

    it('returns data in a copy, leaving the caller object as sent', () => {
      const params = { path: 'README.md' };
      const result = matcher.lookup('file-read', params);
      expect(result).toMatchObject({ valid: true, data: { path: 'README.md', encoding: 'utf8' } });
      expect(params).toEqual({ path: 'README.md' });
    });

    it('returns undefined params read as no params', () => {
      expect(matcher.lookup('git-ops')).toMatchObject({ found: true, valid: true });
    });
  });

  describe('when the name is an alias', () => {
    it.each([
      ['git', 'git-ops'],
      ['Git Log', 'git-ops'],
      ['提交历史', 'git-ops'],
      ['bash', 'shell-exec'],
      ['прочитать файл', 'file-read'],
    ])('returns %s resolved to %s', (alias, name) => {
      const result = matcher.lookup(alias, name === 'shell-exec' ? { cmd: 'ls' } : name === 'file-read' ? { path: 'a' } : {});
      expect(result.found).toBe(true);
      if (result.found) expect(result.tool.name).toBe(name);
    });

    it('returns not found for an alias two tools claim', () => {
      const shared = createMatcher(
        makeIndex([
          makeToolDefinition({ name: 'one', aliases: ['shared'] }),
          makeToolDefinition({ name: 'two', aliases: ['shared'] }),
        ]),
      );
      expect(shared.lookup('shared', {})).toMatchObject({ found: false, code: 'TOOL_NOT_FOUND' });
    });
  });

  describe('when the name is unknown', () => {
    it('returns found: false with the near names as "did you mean"', () => {
      const result = matcher.lookup('shel-exec', {});
      expect(result).toMatchObject({ found: false, code: 'TOOL_NOT_FOUND' });
      if (result.found) return;
      expect(result.near[0]?.name).toBe('shell-exec');
      expect(result.errorMessage).toContain("unknown tool 'shel-exec'; did you mean 'shell-exec'");
    });

    it('returns at most three near names however many are close', () => {
      const tools = Array.from({ length: 12 }, (_, index) => makeToolDefinition({ name: `file-op-${index}` }));
      const result = createMatcher(makeIndex(tools)).lookup('file-op', {});
      expect(result.found).toBe(false);
      if (!result.found) expect(result.near.length).toBe(3);
    });

    it('returns no near names and a way forward for a name like nothing', () => {
      const result = matcher.lookup('zzqqxx', {});
      expect(result).toMatchObject({ found: false, near: [] });
      if (!result.found) expect(result.errorMessage).toContain('match by intent');
    });
  });

  describe('when the params do not fit the schema', () => {
    it.each([
      ['git-ops', { op: 'push' }, ['op'], 'must be one of "log", "status", "diff", "show", "branch"'],
      ['git-ops', { limit: '5' }, ['limit'], 'must be integer'],
      ['git-ops', { limit: 0 }, ['limit'], 'must be >= 1'],
      ['git-ops', { ref: '-rf' }, ['ref'], 'must match pattern'],
      ['shell-exec', {}, ['cmd'], 'is required'],
      ['shell-exec', { cmd: '' }, ['cmd'], 'must NOT have fewer than 1 characters'],
      ['shell-exec', { cmd: 'ls', shell: 'bash' }, ['shell'], 'is not a parameter of this tool'],
      ['file-write', { path: 'a.txt' }, ['content'], 'is required'],
      ['file-write', { path: 1, content: 2, append: 'yes' }, ['path', 'content', 'append'], 'must be'],
      ['http-request', { path: 'v1/status', method: 'POST' }, ['path', 'method'], 'must'],
    ])('returns %s with each offending param named (%j)', (tool, params, offending, expected) => {
      const result = expectInvalid(matcher.lookup(tool, params));
      expect(result.code).toBe('INVALID_PARAMS');
      expect(result.problems.map((problem) => problem.param).sort()).toEqual([...offending].sort());
      for (const param of offending) expect(result.errorMessage).toContain(`'${param}'`);
      expect(result.errorMessage).toContain(expected);
      expect(result.errorMessage).toContain(result.schema);
    });

    it('returns the compact schema of the tool', () => {
      const result = expectInvalid(matcher.lookup('git-ops', { op: 'push' }));
      expect(result.schema).toBe(
        '{ op?: "log" | "status" | "diff" | "show" | "branch" = "log", limit?: integer 1..500 = 10, ref?: string matching /^[^-\\s][^\\s]*$/, path?: string }',
      );
    });

    it('returns params that are not an object as invalid', () => {
      const result = expectInvalid(matcher.lookup('git-ops', ['log']));
      expect(result.problems[0]).toMatchObject({ param: '', message: 'must be object' });
    });

    it('returns string formats checked', () => {
      const tool = makeToolDefinition({
        name: 'fetch-url',
        params_schema: {
          type: 'object',
          properties: { url: { type: 'string', format: 'uri' } },
          required: ['url'],
          additionalProperties: false,
        },
      });
      const result = expectInvalid(createMatcher(makeIndex([tool])).lookup('fetch-url', { url: 'not a uri' }));
      expect(result.problems).toEqual([{ param: 'url', message: 'must match format "uri"' }]);
    });
  });

  // the validator does not check schemas against the meta-schema (the scanner did): one that reached it unchecked is
  // still refused with an answer that names the tool and the fix, and nothing of it runs as code
  describe('when the params schema cannot be compiled', () => {
    it.each([
      ['an unresolvable $ref', { type: 'object', properties: { q: { $ref: '#/$defs/missing' } } }, /'#\/\$defs\/missing' resolves to nothing: add it under params_schema\.\$defs/],
      ['a keyword whose value is code', { type: 'object', properties: { q: { type: 'string', maxLength: 'x; process.exit(3)' } } }, /maxLength value must be \["number"\]/],
      ['an unknown type', { type: 'object', properties: { q: { type: 'strin' } } }, /type must be JSONType or JSONType\[\]: strin/],
    ])('returns %s as invalid, naming the tool and the fix', (_, params_schema, reason) => {
      const tool = makeToolDefinition({ name: 'broken', params_schema });
      const result = expectInvalid(createMatcher(makeIndex([tool])).lookup('broken', { q: 'a' }));
      expect(result.errorMessage).toMatch(/^the params schema of 'broken' cannot be used \(.+\); fix its TOOL\.hdlp$/);
      expect(result.errorMessage).toMatch(reason);
      expect(result.problems).toEqual([{ param: '', message: result.errorMessage }]);
    });
  });
});
